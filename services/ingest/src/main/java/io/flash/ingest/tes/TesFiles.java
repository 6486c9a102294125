package io.flash.ingest.tes;

import io.flash.common.store.Globs;
import io.flash.schema.Fetch;
import io.flash.schema.Mount;
import io.flash.schema.Upload;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.*;

/**
 * A TES task's files as Flash mounts, fetches and uploads. Every container path {@code p} the task
 * names lives at {@code tes/fs/p} in the job workspace (one mirror, so a path means the same file in
 * every executor): volumes, the directories outputs and redirected streams are written to are
 * mounted read-write; an input outside them is fetched to its mirror and mounted read-only at its
 * path; an output is uploaded from its mirror after the last executor.
 */
final class TesFiles {

    static final String MIRROR = "tes/fs";
    /**
     * Inline content a task may carry, all its inputs together, in UTF-8 bytes: the spec asks for at
     * least 128 KiB. Every executor's job task carries a copy and the task document keeps one for
     * the FULL view, so more would crowd the job spec's own limit; larger files go by url.
     */
    public static final int MAX_CONTENT_BYTES = 128 * 1024;

    /** What every executor mounts and fetches; the uploads go on the last one. */
    record Plan(List<Mount> mounts, List<Fetch> fetches, List<Upload> uploads) {
    }

    private TesFiles() {
    }

    static String mirror(String containerPath) {
        return MIRROR + Path.of(containerPath).normalize();
    }

    static Plan plan(TesModel.Task task, List<String> errors) {
        List<String> writable = new ArrayList<>();
        List<String> volumes = task.volumes() == null ? List.of() : task.volumes();
        for (int i = 0; i < volumes.size(); i++) {
            String v = absolute(volumes.get(i), "volumes[" + i + "]", errors);
            if (v != null) writable.add(v);
        }
        List<Upload> uploads = uploads(task.outputs() == null ? List.of() : task.outputs(), writable, errors);
        writable.addAll(streamDirectories(task.executors() == null ? List.of() : task.executors(), errors));
        List<String> roots = outermost(writable);
        List<Mount> mounts = new ArrayList<>();
        for (String dir : roots) mounts.add(new Mount(dir, mirror(dir), false));
        List<Fetch> fetches = fetches(task.inputs() == null ? List.of() : task.inputs(), roots, mounts, errors);
        return new Plan(mounts, fetches, uploads);
    }

    /** Each output as an upload from the mirror; the directory it is written in becomes writable. */
    private static List<Upload> uploads(List<TesModel.Output> outputs, List<String> writable, List<String> errors) {
        List<Upload> uploads = new ArrayList<>();
        for (int i = 0; i < outputs.size(); i++) {
            TesModel.Output o = outputs.get(i);
            String at = "outputs[" + i + "]";
            if (o == null) {
                errors.add(at + ": must be an object");
                continue;
            }
            String path = absolute(o.path(), at + ".path", errors);
            if (path == null) continue;
            if (o.url() == null || o.url().isBlank()) {
                errors.add(at + ".url: required (where the output goes: s3://… or file://…)");
                continue;
            }
            boolean glob = Globs.isGlob(path);
            String prefix = null;
            if (glob) {
                String cut = absolute(o.pathPrefix(), at + ".path_prefix", errors);
                if (cut == null) continue;
                if (!path.startsWith(cut)) {
                    errors.add(at + ".path_prefix: '" + cut + "' does not begin the path '" + path + "'");
                    continue;
                }
                prefix = mirror(cut);
            }
            writable.add(glob ? beforeWildcards(path) : "DIRECTORY".equals(o.type()) ? path : parent(path));
            uploads.add(new Upload(glob ? MIRROR + path : mirror(path), o.url().strip(), prefix, path));
        }
        return uploads;
    }

    /** The directories the executors' stdout and stderr files are written in. */
    private static List<String> streamDirectories(List<TesModel.Executor> executors, List<String> errors) {
        List<String> directories = new ArrayList<>();
        for (int i = 0; i < executors.size(); i++) {
            TesModel.Executor e = executors.get(i);
            if (e == null) continue;
            for (String stream : new String[]{"stdout", "stderr"}) {
                String target = stream.equals("stdout") ? e.stdout() : e.stderr();
                if (target == null) continue;
                String path = absolute(target, "executors[" + i + "]." + stream, errors);
                if (path != null) directories.add(parent(path));
            }
        }
        return directories;
    }

    /** Each input as a fetch into the mirror (inline content within the limit); one outside every writable root is mounted read-only. */
    private static List<Fetch> fetches(List<TesModel.Input> inputs, List<String> roots, List<Mount> mounts, List<String> errors) {
        List<Fetch> fetches = new ArrayList<>();
        long contentBytes = 0;
        for (int i = 0; i < inputs.size(); i++) {
            TesModel.Input in = inputs.get(i);
            String at = "inputs[" + i + "]";
            if (in == null) {
                errors.add(at + ": must be an object");
                continue;
            }
            String path = absolute(in.path(), at + ".path", errors);
            if (path == null) continue;
            boolean directory = "DIRECTORY".equals(in.type());
            if (in.content() != null && !in.content().isEmpty()) {
                long bytes = in.content().getBytes(StandardCharsets.UTF_8).length;
                contentBytes += bytes;
                if (contentBytes > MAX_CONTENT_BYTES) {
                    errors.add(at + ".content: " + bytes + " bytes" + (contentBytes > bytes ? " (" + contentBytes + " with the inputs before it)" : "")
                            + "; a task's inline contents may hold at most " + MAX_CONTENT_BYTES + " bytes in all (docs/tes.md);"
                            + " give a larger file by its url");
                    continue;
                }
                fetches.add(new Fetch(null, in.content(), mirror(path), false)); // the spec: content wins over url
            } else if (in.url() != null && !in.url().isBlank()) {
                String url = in.url().strip();
                fetches.add(new Fetch(url.startsWith("/") ? "file://" + url : url, null, mirror(path), directory));
            } else {
                errors.add(at + ": give its url or its content");
                continue;
            }
            if (under(path, roots) == null) mounts.add(new Mount(path, mirror(path), true));
        }
        return fetches;
    }

    /**
     * The {@code file://} inputs and outputs that lie outside every shared root the nodes serve
     * ({@code roots}: the {@code file://} entries of service-info's storage), as errors naming the
     * field: refused at create rather than failing after the task ran.
     */
    static List<String> outsideSharedRoots(TesModel.Task task, List<String> roots) {
        List<Path> shared = roots.stream().filter(r -> r.startsWith("file://"))
                .map(r -> Path.of(r.substring("file://".length())).normalize()).toList();
        List<String> errors = new ArrayList<>();
        List<TesModel.Input> inputs = task.inputs() == null ? List.of() : task.inputs();
        long contentBytes = 0;
        for (int i = 0; i < inputs.size(); i++) {
            TesModel.Input in = inputs.get(i);
            if (in == null || in.content() != null && !in.content().isEmpty() || in.url() == null) continue;
            String url = in.url().strip();
            outside(url.startsWith("/") ? "file://" + url : url, "inputs[" + i + "].url", shared).ifPresent(errors::add);
        }
        List<TesModel.Output> outputs = task.outputs() == null ? List.of() : task.outputs();
        for (int i = 0; i < outputs.size(); i++) {
            TesModel.Output out = outputs.get(i);
            if (out != null && out.url() != null) outside(out.url().strip(), "outputs[" + i + "].url", shared).ifPresent(errors::add);
        }
        return errors;
    }

    private static Optional<String> outside(String url, String field, List<Path> shared) {
        if (!url.startsWith("file:")) return Optional.empty();
        String path;
        try {
            path = URI.create(url).getPath();
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // the file rules name a malformed URL
        }
        if (path == null) return Optional.empty();
        Path p = Path.of(path).normalize();
        if (shared.stream().anyMatch(p::startsWith)) return Optional.empty();
        return Optional.of(field + ": " + p + " is outside the nodes' shared root"
                + (shared.isEmpty() ? " (this server serves no file:// storage)" : " " + shared.get(0))
                + " (FLASH_SHARED_ROOT): file:// inputs and outputs must lie under it (see service-info's storage)");
    }

    /** The workspace path an executor's redirected stream is written to, or null. */
    static String redirect(String containerPath) {
        return containerPath == null || !containerPath.startsWith("/") ? null : mirror(containerPath);
    }

    private static String absolute(String raw, String field, List<String> errors) {
        if (raw == null || raw.isBlank()) {
            errors.add(field + ": required (an absolute path in the container)");
            return null;
        }
        if (!raw.startsWith("/")) {
            errors.add(field + ": '" + raw + "' must be an absolute path in the container");
            return null;
        }
        if (Arrays.asList(raw.split("/")).contains("..")) {
            errors.add(field + ": '" + raw + "' must not contain '..'");
            return null;
        }
        String normal = Path.of(raw).normalize().toString();
        if (normal.equals("/")) {
            errors.add(field + ": '/' is the container's root, not a file or directory Flash can give it");
            return null;
        }
        return normal;
    }

    private static String parent(String path) {
        Path parent = Path.of(path).getParent();
        return parent == null ? "/" : parent.toString();
    }

    private static String beforeWildcards(String path) {
        String fixed = Globs.fixedPrefix(path);
        return fixed.endsWith("/") ? fixed.substring(0, fixed.length() - 1) : parent(fixed);
    }

    /** The directories no other one of the list contains, in order. */
    private static List<String> outermost(List<String> dirs) {
        List<String> sorted = new ArrayList<>(new TreeSet<>(dirs));
        List<String> roots = new ArrayList<>();
        for (String d : sorted) if (under(d, roots) == null) roots.add(d);
        return roots;
    }

    private static String under(String path, List<String> dirs) {
        for (String d : dirs) if (path.equals(d) || path.startsWith(d + "/")) return d;
        return null;
    }
}
