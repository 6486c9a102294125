package io.flash.batch.app;

import io.flash.batch.cluster.JobScripts;
import io.flash.batch.shard.Workspaces;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The jobs' workspaces on the storage this adapter shares with the cluster's nodes. */
final class FileWorkspaces implements Workspaces {

    private static final int TAIL_BYTES = 4096;
    private final JobScripts scripts;

    FileWorkspaces(JobScripts scripts) {
        this.scripts = scripts;
    }

    @Override
    public boolean oomKilled(String jobId, String attemptId) {
        return Files.exists(scripts.oomMarker(jobId, attemptId));
    }

    @Override
    public Integer exitStatus(String jobId, String attemptId) {
        try {
            return Integer.valueOf(Files.readString(scripts.exitFile(jobId, attemptId)).strip());
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    @Override
    public String tail(String jobId, String attemptId) {
        Path file = scripts.outputFile(jobId, attemptId);
        if (!Files.exists(file)) return null;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, f.length() - TAIL_BYTES);
            byte[] bytes = new byte[(int) (f.length() - start)];
            f.seek(start);
            f.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }
}
