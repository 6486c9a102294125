package io.flash.executor.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Declared inputs and outputs live in the job's workspace, the filesystem store: staging an input
 * or "uploading" an output is checking that it is there (before start, before SUCCEEDED).
 */
final class WorkspaceFiles {

    private final Path root;

    WorkspaceFiles(Path root) {
        this.root = root;
    }

    /** @return found files as "path (bytes)"; adds every missing path to {@code missing} */
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
