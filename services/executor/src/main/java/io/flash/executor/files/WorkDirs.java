package io.flash.executor.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;

/**
 * Where an attempt writes. The job's workspace ({@code <root>/jobs/<jobId>}, mounted at
 * /workspace) is shared by the job's tasks on this node and outlives attempts: it is the
 * filesystem store tasks exchange files through. The attempt's own directory
 * ({@code <root>/attempts/<attemptId>}, mounted at /work, the default working directory) is removed
 * with the attempt. Both belong to the user containers run as, with no access for anyone else;
 * {@code jobs/} and {@code attempts/} belong to the executor and no task can write them, so a
 * workspace itself is never a link.
 */
public record WorkDirs(Path workspace, Path work) {

    /** Flash's own files in a job workspace (each attempt's full log): never a task's product. */
    public static final String FLASH_DIR = ".flash";

    public static final class Layout {
        private final Path root;
        private final Scratch scratch;

        public Layout(Path root, Scratch scratch) {
            this.root = root;
            this.scratch = scratch;
        }

        public WorkDirs create(String jobId, String attemptId) throws IOException {
            return new WorkDirs(owned(parent("jobs").resolve(jobId)), owned(parent("attempts").resolve(attemptId)));
        }

        /** The attempt's full log, kept in the job's workspace with its outputs, opened without following a link. */
        public OutputStream openLog(String jobId, String attemptId) throws IOException {
            return new Beneath(root.resolve("jobs").resolve(jobId), scratch).create(FLASH_DIR + "/logs/" + attemptId + ".log");
        }

        public void removeAttempt(String attemptId) {
            Path dir = root.resolve("attempts").resolve(attemptId);
            if (!Files.exists(dir)) return;
            try (var walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // leftovers are harmless; the next cleanup takes them
            }
        }

        private Path parent(String name) throws IOException {
            Path dir = Files.createDirectories(root.resolve(name));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(scratch.owner().canGive() ? "rwx------" : "rwxrwxrwx"));
            return dir;
        }

        private Path owned(Path dir) throws IOException {
            if (Files.isSymbolicLink(dir)) throw new IOException(dir + " is a symbolic link; the work root was tampered with");
            Files.createDirectories(dir);
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) scratch.owner().give(dir);
            return dir;
        }
    }
}
