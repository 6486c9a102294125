package io.flash.executor.node;

import io.flash.executor.store.InputCache;
import io.flash.common.store.ObjectLocation;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskDefinition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Moves an attempt's declared files. Inputs: a workspace path must be in the job workspace (the
 * filesystem store) — or, when the job has an object store, is fetched from
 * {@code <store>/<jobId>/<path>}; an {@code s3://bucket/key} input is fetched through the node's
 * cache to {@code /work/inputs/<bucket>/<key>}. Outputs: checked in the workspace and, when the job
 * has an object store, uploaded to {@code <store>/<jobId>/<path>} before SUCCEEDED is reported.
 */
final class Staging {

    /** Why staging failed, classified: a missing file is the user's, an unreachable store is not. */
    record Failure(FailureClass failureClass, String reason) {
    }

    /** What an attempt must leave behind and where it goes. {@link #NONE} after a restart (not known then). */
    record Outputs(List<String> declared, String store, List<io.flash.schema.Upload> uploads, String stdoutTo, String stderrTo) {
        static final Outputs NONE = new Outputs(List.of(), null, List.of(), null, null);

        static Outputs of(TaskDefinition task) {
            return new Outputs(task.getOutputs(), task.getStore(), task.getUploads(), task.getStdoutTo(), task.getStderrTo());
        }
    }

    record Published(List<String> outputs, Failure failure) {
    }

    private final Path workRoot;
    private final Supplier<InputCache> cache;
    private final Supplier<ObjectStore> store;
    private final TaskFiles files;

    Staging(Path workRoot, Supplier<ObjectStore> store, Supplier<InputCache> cache, Path sharedRoot) {
        this.workRoot = workRoot;
        this.store = store;
        this.cache = cache;
        this.files = new TaskFiles(store, cache, sharedRoot);
    }

    /** @return null when every input is in place */
    Failure stageInputs(String jobId, TaskDefinition task, Path attemptWork) {
        Path workspace = workspace(jobId);
        Failure notPlaced = files.stage(workspace, task.getFetches(), task.getMounts());
        if (notPlaced != null) return notPlaced;
        List<String> missing = new ArrayList<>();
        for (String input : task.getInputs()) {
            try {
                if (ObjectLocation.isObjectUri(input)) {
                    ObjectLocation at = ObjectLocation.parse(input);
                    cache.get().fetch(at, attemptWork.resolve("inputs").resolve(at.bucket()).resolve(at.key()));
                    continue;
                }
                Path file = workspace.resolve(input).normalize();
                if (!file.startsWith(workspace)) {
                    missing.add(input);
                } else if (!Files.exists(file)) {
                    if (task.getStore() == null) {
                        missing.add(input);
                    } else {
                        store.get().download(ObjectLocation.parsePrefix(task.getStore()).child(jobId + "/" + input), file);
                    }
                }
            } catch (ObjectStore.NotFound e) {
                missing.add(input + " (" + e.getMessage() + ")");
            } catch (Exception e) {
                return new Failure(FailureClass.INFRASTRUCTURE, "could not fetch input " + input + ": " + message(e));
            }
        }
        if (missing.isEmpty()) return null;
        return new Failure(FailureClass.USER, "its inputs " + String.join(", ", missing) + " are not in the job workspace"
                + (task.getStore() == null ? "" : " or its store " + task.getStore()));
    }

    /** Checks the declared outputs and uploads them to the job's store, if it has one. */
    Published publishOutputs(String jobId, Outputs outputs) {
        Path workspace = workspace(jobId);
        List<String> found = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String output : outputs.declared()) {
            Path file = workspace.resolve(output).normalize();
            if (!file.startsWith(workspace) || !Files.exists(file)) {
                missing.add(output);
                continue;
            }
            try {
                if (outputs.store() == null) {
                    found.add(output + " (" + (Files.isDirectory(file) ? "directory" : Files.size(file) + " bytes") + ")");
                } else {
                    ObjectLocation base = ObjectLocation.parsePrefix(outputs.store()).child(jobId + "/" + output);
                    found.add(upload(file, base) + " (" + (Files.isDirectory(file) ? "directory" : Files.size(file) + " bytes") + ")");
                }
            } catch (ObjectStore.NotFound e) {
                return new Published(List.of(), new Failure(FailureClass.USER,
                        "could not upload output " + output + " to " + outputs.store() + ": " + e.getMessage()));
            } catch (Exception e) {
                return new Published(List.of(), new Failure(FailureClass.INFRASTRUCTURE,
                        "could not upload output " + output + " to " + outputs.store() + ": " + message(e)));
            }
        }
        if (!missing.isEmpty()) {
            return new Published(List.of(), new Failure(FailureClass.USER,
                    "exited 0 but left no " + String.join(", ", missing) + " in the job workspace (declared in outputs)"));
        }
        Published uploaded = files.publish(workspace, outputs.uploads());
        if (uploaded.failure() != null) return uploaded;
        found.addAll(uploaded.outputs());
        return new Published(found, null);
    }

    /** The workspace file an attempt's redirected stream goes to, or null. */
    Path redirected(String jobId, String workspacePath) {
        return workspacePath == null ? null : workspace(jobId).resolve(workspacePath).normalize();
    }

    /** A file goes to {@code to}; a directory's files go under it, keeping their relative paths. */
    private ObjectLocation upload(Path file, ObjectLocation to) throws IOException, ObjectStore.NotFound {
        if (!Files.isDirectory(file)) {
            store.get().upload(file, to);
            return to;
        }
        try (var walk = Files.walk(file)) {
            for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                store.get().upload(f, to.child(file.relativize(f).toString().replace('\\', '/')));
            }
        }
        return to.child("");
    }

    ObjectStore store() {
        return store.get();
    }

    private Path workspace(String jobId) {
        return workRoot.resolve("jobs").resolve(jobId);
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
