package io.flash.executor.files;

import io.flash.common.store.ObjectLocation;
import io.flash.executor.store.InputCache;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskDefinition;
import io.flash.schema.Upload;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
 * Every path in a workspace or attempt directory is reached through {@link Beneath}: a link a task
 * made is never followed, whatever the executor reads, writes or binds.
 */
public final class Staging {

    /** What an attempt must leave behind and where it goes. {@link #NONE} after a restart (not known then). */
    public record Outputs(List<String> declared, String store, List<Upload> uploads, String stdoutTo, String stderrTo) {
        public static final Outputs NONE = new Outputs(List.of(), null, List.of(), null, null);

        public static Outputs of(TaskDefinition task) {
            return new Outputs(task.getOutputs(), task.getStore(), task.getUploads(), task.getStdoutTo(), task.getStderrTo());
        }
    }


    private final Path workRoot;
    private final Supplier<InputCache> cache;
    private final Supplier<ObjectStore> store;
    private final TaskFiles files;
    private final Scratch scratch;

    public Staging(Path workRoot, Supplier<ObjectStore> store, Supplier<InputCache> cache, Path sharedRoot, Scratch scratch,
            AddressRule addresses) {
        this.workRoot = workRoot;
        this.store = store;
        this.cache = cache;
        this.scratch = scratch;
        this.files = new TaskFiles(store, cache, sharedRoot, scratch, addresses);
    }

    /** @return null when every input is in place */
    public StagingFailure stageInputs(String jobId, TaskDefinition task, Path attemptWork) {
        Path workspace = workspace(jobId);
        StagingFailure notPlaced = files.stage(workspace, task.getFetches(), task.getMounts());
        if (notPlaced != null) return notPlaced;
        Beneath inWorkspace = new Beneath(workspace, scratch);
        List<String> missing = new ArrayList<>();
        for (String input : task.getInputs()) {
            try {
                if (ObjectLocation.isObjectUri(input)) {
                    ObjectLocation at = ObjectLocation.parse(input);
                    Path made = scratch.file();
                    try {
                        cache.get().fetch(at, made);
                        new Beneath(attemptWork, scratch).place(made, "inputs/" + at.bucket() + "/" + at.key());
                    } finally {
                        scratch.discard(made);
                    }
                    continue;
                }
                if (inWorkspace.kind(input) != Beneath.Kind.ABSENT) continue;
                if (task.getStore() == null) {
                    missing.add(input);
                    continue;
                }
                Path made = scratch.file();
                try {
                    store.get().download(ObjectLocation.parsePrefix(task.getStore()).child(jobId + "/" + input), made);
                    inWorkspace.place(made, input);
                } finally {
                    scratch.discard(made);
                }
            } catch (Beneath.Refused e) {
                return new StagingFailure(FailureClass.USER, "input " + input + ": " + e.getMessage());
            } catch (ObjectStore.NotFound e) {
                missing.add(input + " (" + e.getMessage() + ")");
            } catch (Exception e) {
                return StagingFailure.unexpected("could not fetch input " + input, e);
            }
        }
        if (missing.isEmpty()) return null;
        return new StagingFailure(FailureClass.USER, "its inputs " + String.join(", ", missing) + " are not in the job workspace"
                + (task.getStore() == null ? "" : " or its store " + task.getStore()));
    }

    /** Checks the declared outputs and uploads them to the job's store, if it has one. */
    public Published publishOutputs(String jobId, Outputs outputs) {
        Beneath workspace = new Beneath(workspace(jobId), scratch);
        List<String> found = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String output : outputs.declared()) {
            try {
                Beneath.Kind kind = workspace.kind(output);
                if (kind == Beneath.Kind.ABSENT) {
                    missing.add(output);
                } else if (outputs.store() == null) {
                    found.add(output + " (" + described(workspace, output, kind) + ")");
                } else {
                    ObjectLocation base = ObjectLocation.parsePrefix(outputs.store()).child(jobId + "/" + output);
                    found.add(upload(workspace, output, kind, base) + " (" + described(workspace, output, kind) + ")");
                }
            } catch (Beneath.Refused e) {
                return new Published(List.of(), new StagingFailure(FailureClass.USER,
                        "could not collect output " + output + ": " + e.getMessage()));
            } catch (ObjectStore.NotFound e) {
                return new Published(List.of(), new StagingFailure(FailureClass.USER,
                        "could not upload output " + output + " to " + outputs.store() + ": " + e.getMessage()));
            } catch (Exception e) {
                return new Published(List.of(), StagingFailure.unexpected("could not upload output " + output + " to " + outputs.store(), e));
            }
        }
        if (!missing.isEmpty()) {
            return new Published(List.of(), new StagingFailure(FailureClass.USER,
                    "exited 0 but left no " + String.join(", ", missing) + " in the job workspace (declared in outputs)"));
        }
        Published uploaded = files.publish(workspace(jobId), outputs.uploads());
        if (uploaded.failure() != null) return uploaded;
        found.addAll(uploaded.outputs());
        return new Published(found, null);
    }

    /**
     * Writes a stream an attempt asked to have in a workspace file (TES stdout/stderr): made in the
     * scratch directory and renamed into place. A path the task made into a link is refused.
     */
    public StagingFailure writeRedirected(String jobId, String workspacePath, StreamWriter writer) {
        if (workspacePath == null) return null;
        Beneath workspace = new Beneath(workspace(jobId), scratch);
        try {
            if (workspace.kind(workspacePath) == Beneath.Kind.LINK) {
                throw new Beneath.Refused(workspacePath.replaceFirst("^tes/fs", "") + " is a symbolic link the task made; "
                        + "Flash writes no stream through a link");
            }
            Path made = scratch.file();
            try {
                try (OutputStream out = Files.newOutputStream(made)) {
                    writer.writeTo(out);
                }
                workspace.place(made, workspacePath);
            } finally {
                scratch.discard(made);
            }
            return null;
        } catch (Beneath.Refused e) {
            return new StagingFailure(FailureClass.USER, "could not write its output stream: " + e.getMessage());
        } catch (Exception e) {
            return new StagingFailure(FailureClass.INFRASTRUCTURE, "could not write its output stream to "
                    + workspacePath.replaceFirst("^tes/fs", "") + ": " + message(e));
        }
    }

    /** Writes a whole stream (the engine's copy of a container's stdout or stderr). */
    public interface StreamWriter {
        void writeTo(OutputStream out) throws Exception;
    }

    private static String described(Beneath workspace, String output, Beneath.Kind kind) throws IOException {
        if (kind == Beneath.Kind.DIRECTORY) return "directory";
        if (kind == Beneath.Kind.LINK) return "a symbolic link, not followed";
        return workspace.files(output).get(0).size() + " bytes";
    }

    /** A file goes to {@code to}; a directory's files go under it, keeping their relative paths. */
    private ObjectLocation upload(Beneath workspace, String output, Beneath.Kind kind, ObjectLocation to)
            throws IOException, ObjectStore.NotFound {
        String base = Path.of(output).normalize().toString();
        for (Beneath.Entry file : workspace.files(output)) {
            ObjectLocation at = kind == Beneath.Kind.DIRECTORY ? to.child(Path.of(base).relativize(Path.of(file.path())).toString()) : to;
            try (InputStream in = workspace.read(file.path())) {
                store.get().upload(in, file.size(), at);
            }
        }
        return kind == Beneath.Kind.DIRECTORY ? to.child("") : to;
    }

    public ObjectStore store() {
        return store.get();
    }

    public Scratch scratch() {
        return scratch;
    }

    private Path workspace(String jobId) {
        return workRoot.resolve("jobs").resolve(jobId);
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
