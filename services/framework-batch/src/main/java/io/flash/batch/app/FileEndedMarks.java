package io.flash.batch.app;

import io.flash.batch.core.ClusterWorker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The ended marks in one directory of the shared storage. Listed, not watched: inotify does not see
 * what another host writes to NFS, and a listing of one directory is cheap.
 */
final class FileEndedMarks implements ClusterWorker.EndedMarks {

    private final Path directory;

    FileEndedMarks(Path directory) {
        this.directory = directory;
    }

    @Override
    public Set<String> list() {
        Set<String> names = new HashSet<>();
        try (Stream<Path> marks = Files.list(directory)) {
            marks.forEach(m -> names.add(m.getFileName().toString()));
        } catch (IOException e) {
            // no job has ended yet (the first script makes the directory), or the storage is away: the looks still come
        }
        return names;
    }

    @Override
    public void remove(String jobName) {
        try {
            Files.deleteIfExists(directory.resolve(jobName));
        } catch (IOException e) {
            // listed again next time and removed then
        }
    }
}
