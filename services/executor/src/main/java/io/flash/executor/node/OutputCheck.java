package io.flash.executor.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Declared outputs live in the job's workspace, the filesystem store: "uploading" them is checking
 * that they are there, before SUCCEEDED is reported.
 */
final class OutputCheck {

    private final Path root;

    OutputCheck(Path root) {
        this.root = root;
    }

    /** @return found outputs as "path (bytes)"; adds every missing path to {@code missing} */
    List<String> check(String jobId, List<String> declared, List<String> missing) {
        Path workspace = root.resolve("jobs").resolve(jobId);
        List<String> found = new ArrayList<>();
        for (String output : declared) {
            Path file = workspace.resolve(output).normalize();
            if (!file.startsWith(workspace) || !Files.exists(file)) {
                missing.add(output);
                continue;
            }
            try {
                found.add(output + " (" + (Files.isDirectory(file) ? "directory" : Files.size(file) + " bytes") + ")");
            } catch (IOException e) {
                missing.add(output);
            }
        }
        return found;
    }
}
