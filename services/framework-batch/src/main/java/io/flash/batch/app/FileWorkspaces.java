package io.flash.batch.app;

import io.flash.batch.cluster.JobScripts;
import io.flash.batch.core.Workspaces;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
    public boolean timedOut(String jobId, String attemptId) {
        return Files.exists(scripts.timeoutMarker(jobId, attemptId));
    }

    @Override
    public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) {
        Path file = scripts.outputFile(jobId, attemptId);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            if (length <= from) return new Output("", from, 0);
            byte[] bytes = read(f, from, (int) Math.min(max, length - from));
            return Output.cut(bytes, 0, bytes.length, from, max, toTheEnd, length);
        } catch (IOException e) {
            return new Output("", from, 0); // not written yet
        }
    }

    @Override
    public Outputs outputs(String jobId, List<String> declared) {
        Path workspace = scripts.workspace(jobId);
        List<String> found = new ArrayList<>(), missing = new ArrayList<>();
        for (String output : declared) {
            Path file = workspace.resolve(output).normalize();
            try {
                if (!file.startsWith(workspace) || !Files.exists(file)) missing.add(output);
                else found.add(output + " (" + (Files.isDirectory(file) ? "directory" : Files.size(file) + " bytes") + ")");
            } catch (IOException e) {
                missing.add(output);
            }
        }
        return new Outputs(found, missing);
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
    public Usage usage(String jobId, String attemptId) {
        try {
            String[] words = Files.readString(scripts.usageFile(jobId, attemptId)).strip().split(" ");
            return new Usage(Long.parseLong(words[0]), words.length > 1 ? Long.parseLong(words[1]) / 1e9 : 0);
        } catch (IOException | RuntimeException e) {
            return null; // not written (an older script, a node without the cgroup files) or cut short
        }
    }

    @Override
    public String tail(String jobId, String attemptId) {
        Path file = scripts.outputFile(jobId, attemptId);
        if (!Files.exists(file)) return null;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, f.length() - TAIL_BYTES);
            return new String(read(f, start, (int) (f.length() - start)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    private static byte[] read(RandomAccessFile f, long from, int length) throws IOException {
        byte[] bytes = new byte[length];
        f.seek(from);
        f.readFully(bytes);
        return bytes;
    }
}
