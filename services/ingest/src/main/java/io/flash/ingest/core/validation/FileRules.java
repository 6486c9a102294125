package io.flash.ingest.core.validation;

import io.flash.common.store.Globs;
import io.flash.common.store.ObjectLocation;
import io.flash.schema.Fetch;
import io.flash.schema.FieldError;
import io.flash.schema.Mount;
import io.flash.schema.Upload;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.*;

/**
 * A task's files beyond its workspace: mounts at absolute container paths, fetches before the start,
 * uploads after an exit 0, and stream redirections. Everything Docker would refuse in a bind (a
 * relative target, a ':' or ',' in a path, a target over the engine's own /proc, /sys, /dev or
 * Flash's /workspace, /work) and every URL the executor cannot serve is refused here, by field.
 */
final class FileRules {

    static final int MAX_MOUNTS = 64, MAX_FETCHES = 256, MAX_UPLOADS = 256;
    /** An inline file travels in the submission record, itself at most 2 MiB. */
    static final int MAX_INLINE_BYTES = 1 << 20;
    /** /tmp may be mounted over: the executor then leaves out its own tmpfs there. */
    private static final Set<String> FLASH_PATHS = Set.of("/workspace", "/work");
    private static final List<String> ENGINE_PATHS = List.of("/proc", "/sys", "/dev");
    private static final Set<String> FETCH_SCHEMES = Set.of("s3", "file", "http", "https");
    private static final Set<String> UPLOAD_SCHEMES = Set.of("s3", "file");

    private FileRules() {
    }

    static List<Mount> mounts(List<Mount> mounts, String field, List<FieldError> errors) {
        if (mounts.size() > MAX_MOUNTS) errors.add(new FieldError(field, mounts.size() + " mounts; at most " + MAX_MOUNTS));
        Set<String> targets = new HashSet<>();
        List<Mount> valid = new ArrayList<>();
        for (int i = 0; i < mounts.size(); i++) {
            Mount m = mounts.get(i);
            String at = field + "[" + i + "]";
            String target = containerPath(m.getPath(), at + ".path", errors);
            String source = workspacePath(m.getSource(), at + ".source", false, errors);
            if (target == null || source == null) continue;
            if (!targets.add(target)) {
                errors.add(new FieldError(at + ".path", "'" + target + "' is mounted twice"));
                continue;
            }
            valid.add(new Mount(target, source, m.getReadOnly()));
        }
        return valid;
    }

    static List<Fetch> fetches(List<Fetch> fetches, String field, List<FieldError> errors) {
        if (fetches.size() > MAX_FETCHES) errors.add(new FieldError(field, fetches.size() + " fetches; at most " + MAX_FETCHES));
        List<Fetch> valid = new ArrayList<>();
        for (int i = 0; i < fetches.size(); i++) {
            Fetch f = fetches.get(i);
            String at = field + "[" + i + "]";
            String to = workspacePath(f.getTo(), at + ".to", false, errors);
            boolean ok = to != null;
            if ((f.getUrl() == null) == (f.getContent() == null)) {
                errors.add(new FieldError(at, "give either url or content, not " + (f.getUrl() == null ? "neither" : "both")));
                ok = false;
            } else if (f.getContent() != null) {
                int bytes = f.getContent().getBytes(StandardCharsets.UTF_8).length;
                if (bytes > MAX_INLINE_BYTES) {
                    errors.add(new FieldError(at + ".content", bytes + " bytes inline; at most " + MAX_INLINE_BYTES
                            + " — put larger files in the object store and give their url"));
                    ok = false;
                }
                if (f.getDirectory()) {
                    errors.add(new FieldError(at + ".directory", "inline content is one file, not a directory"));
                    ok = false;
                }
            } else {
                ok &= url(f.getUrl(), at + ".url", FETCH_SCHEMES, errors);
                if (f.getDirectory() && f.getUrl().startsWith("http")) {
                    errors.add(new FieldError(at + ".directory", "an http(s) URL names one file; directories come from s3:// or file://"));
                    ok = false;
                }
            }
            if (ok) valid.add(new Fetch(f.getUrl(), f.getContent(), to, f.getDirectory()));
        }
        return valid;
    }

    static List<Upload> uploads(List<Upload> uploads, String field, List<FieldError> errors) {
        if (uploads.size() > MAX_UPLOADS) errors.add(new FieldError(field, uploads.size() + " uploads; at most " + MAX_UPLOADS));
        List<Upload> valid = new ArrayList<>();
        for (int i = 0; i < uploads.size(); i++) {
            Upload u = uploads.get(i);
            String at = field + "[" + i + "]";
            String from = workspacePath(u.getFrom(), at + ".from", true, errors);
            boolean ok = from != null & url(u.getUrl(), at + ".url", UPLOAD_SCHEMES, errors);
            String prefix = null;
            if (u.getPrefix() != null) {
                prefix = u.getPrefix().isEmpty() ? "" : workspacePath(u.getPrefix(), at + ".prefix", false, errors);
                if (prefix != null && from != null && !from.startsWith(prefix)) {
                    errors.add(new FieldError(at + ".prefix", "'" + prefix + "' does not begin '" + from + "'"));
                    ok = false;
                }
            }
            if (ok) valid.add(new Upload(from, u.getUrl().strip(), prefix, u.getShownAs()));
        }
        return valid;
    }

    /** A redirection target: a workspace path, or null when none is asked. */
    static String redirect(String path, String field, List<FieldError> errors) {
        return path == null ? null : workspacePath(path, field, false, errors);
    }

    private static String containerPath(String raw, String field, List<FieldError> errors) {
        if (raw == null || !ContainerRules.pathIsPrintable(raw, field, errors)) return null;
        String path = raw.strip();
        if (!path.startsWith("/")) {
            errors.add(new FieldError(field, "'" + ContainerRules.printable(raw) + "' is not an absolute path in the container"));
            return null;
        }
        String normal = Path.of(path).normalize().toString();
        if (path.contains(":") || path.contains(",")) {
            errors.add(new FieldError(field, "'" + ContainerRules.printable(raw) + "': Docker cannot bind a path with ':' or ','"));
        } else if (normal.equals("/") || FLASH_PATHS.contains(normal)) {
            errors.add(new FieldError(field, "'" + normal + "' is the container's root or a directory Flash mounts itself (/workspace, /work)"));
        } else if (ENGINE_PATHS.stream().anyMatch(p -> normal.equals(p) || normal.startsWith(p + "/"))) {
            errors.add(new FieldError(field, "'" + normal + "' is under /proc, /sys or /dev, which the engine owns"));
        } else if (normal.length() > 1024) {
            errors.add(new FieldError(field, "a path of " + normal.length() + " characters; at most 1024"));
        } else {
            return normal;
        }
        return null;
    }

    private static String workspacePath(String raw, String field, boolean globAllowed, List<FieldError> errors) {
        if (raw == null || !ContainerRules.pathIsPrintable(raw, field, errors)) return null;
        String path = raw.strip();
        if (path.startsWith("/workspace/")) path = path.substring("/workspace/".length());
        List<String> parts = Arrays.asList(path.split("/"));
        if (path.isEmpty() || path.startsWith("/") || parts.contains("..") || parts.contains(".")) {
            errors.add(new FieldError(field, "'" + ContainerRules.printable(raw) + "' is not a path inside the job workspace "
                    + "(relative to /workspace, without '.' or '..')"));
        } else if (parts.get(0).equals(".flash")) {
            errors.add(new FieldError(field, "'" + path + "': .flash in the workspace is Flash's own (logs, scripts)"));
        } else if (path.contains(":") || path.contains(",")) {
            errors.add(new FieldError(field, "'" + ContainerRules.printable(raw) + "': Docker cannot bind a path with ':' or ','"));
        } else if (!globAllowed && Globs.isGlob(path)) {
            errors.add(new FieldError(field, "'" + path + "': wildcards are allowed only in an upload's from"));
        } else {
            return path;
        }
        return null;
    }

    private static boolean url(String raw, String field, Set<String> schemes, List<FieldError> errors) {
        if (raw == null || raw.isBlank()) {
            errors.add(new FieldError(field, "required: one of " + new TreeSet<>(schemes).stream().map(s -> s + "://").toList()));
            return false;
        }
        String url = raw.strip();
        String scheme = url.contains("://") ? url.substring(0, url.indexOf("://")).toLowerCase(Locale.ROOT) : "";
        if (!schemes.contains(scheme)) {
            errors.add(new FieldError(field, "'" + ContainerRules.printable(url) + "': Flash serves "
                    + new TreeSet<>(schemes).stream().map(s -> s + "://").toList() + " here"));
            return false;
        }
        try {
            switch (scheme) {
                case "s3" -> ObjectLocation.parsePrefix(url);
                case "file" -> {
                    URI uri = URI.create(url);
                    String path = uri.getPath();
                    if (uri.getHost() != null && !uri.getHost().equals("localhost") || path == null || !path.startsWith("/") || Arrays.asList(path.split("/")).contains("..")) {
                        throw new IllegalArgumentException("'" + url + "' needs an absolute path without '..' (file:///shared/…)");
                    }
                }
                default -> {
                    URI uri = URI.create(url);
                    if (uri.getHost() == null) throw new IllegalArgumentException("'" + url + "' has no host");
                }
            }
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(field, e.getMessage()));
            return false;
        }
        return true;
    }
}
