package io.flash.executor.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;

/**
 * Where an attempt writes. The job's workspace ({@code <root>/jobs/<jobId>}, mounted at
 * /workspace) is shared by the job's tasks on this node and outlives attempts: it is the
 * filesystem store tasks exchange files through. The attempt's own directory
 * ({@code <root>/attempts/<attemptId>}, mounted at /work, the default working directory) is removed
 * with the attempt. Both are open to the unprivileged user containers run as.
 */
record WorkDirs(Path workspace, Path work) {

    static final class Layout {
        private final Path root;

        Layout(Path root) {
            this.root = root;
        }

        WorkDirs create(String jobId, String attemptId) throws IOException {
            return new WorkDirs(open(root.resolve("jobs").resolve(jobId)), open(root.resolve("attempts").resolve(attemptId)));
        }

        /** The attempt's full log, kept in the job's workspace with its outputs. */
        Path logFile(String jobId, String attemptId) {
            return root.resolve("jobs").resolve(jobId).resolve(".flash").resolve("logs").resolve(attemptId + ".log");
        }

        void removeAttempt(String attemptId) {
            Path dir = root.resolve("attempts").resolve(attemptId);
            if (!Files.exists(dir)) return;
            try (var walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // leftovers are harmless; the next cleanup takes them
            }
        }

        private static Path open(Path dir) throws IOException {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            return dir;
        }
    }
}
