package io.flash.executor.node;

import io.flash.common.store.Globs;
import io.flash.common.store.ObjectLocation;
import io.flash.executor.store.InputCache;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.FailureClass;
import io.flash.schema.Fetch;
import io.flash.schema.Mount;
import io.flash.schema.Upload;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.*;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A task's fetches, mount sources and uploads (docs/tes.md): files placed in the job workspace from
 * inline content, {@code s3://} (through the node's cache), {@code file://} under the node's shared
 * root, or {@code http(s)://}; uploaded after an exit 0 to {@code s3://} or {@code file://}. A
 * missing source or a path outside the shared root is the task's own failure; an unreachable store
 * or server is the infrastructure's.
 */
final class TaskFiles {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NORMAL).build();

    private final Supplier<ObjectStore> store;
    private final Supplier<InputCache> cache;
    private final Path sharedRoot;

    TaskFiles(Supplier<ObjectStore> store, Supplier<InputCache> cache, Path sharedRoot) {
        this.store = store;
        this.cache = cache;
        this.sharedRoot = sharedRoot.toAbsolutePath().normalize();
    }

    /** A source the task named that is not there, or not allowed: the task's failure. */
    static final class Missing extends Exception {
        Missing(String message) {
            super(message);
        }
    }

    /** @return null when every fetch is in place and every mount has its source */
    Staging.Failure stage(Path workspace, List<Fetch> fetches, List<Mount> mounts) {
        for (Fetch f : fetches) {
            Path target = inside(workspace, f.getTo());
            String what = f.getContent() != null ? "inline input " + f.getTo() : f.getUrl();
            try {
                if (Files.exists(target)) continue; // an earlier executor of the job placed it
                Files.createDirectories(target.getParent());
                if (f.getContent() != null) {
                    Files.writeString(target, f.getContent());
                } else if (f.getUrl().startsWith("s3://")) {
                    fetchObject(f, target);
                } else if (f.getUrl().startsWith("file:")) {
                    copyTree(shared(f.getUrl()), target);
                } else {
                    download(f.getUrl(), target);
                }
                open(target);
            } catch (Missing | ObjectStore.NotFound e) {
                return new Staging.Failure(FailureClass.USER, "input " + what + ": " + e.getMessage());
            } catch (Exception e) {
                return new Staging.Failure(FailureClass.INFRASTRUCTURE, "could not fetch input " + what + ": " + message(e));
            }
        }
        for (Mount m : mounts) {
            Path source = inside(workspace, m.getSource());
            try {
                if (!m.getReadOnly()) {
                    Files.createDirectories(source);
                    open(source);
                } else if (!Files.exists(source)) {
                    return new Staging.Failure(FailureClass.USER, "nothing to mount at " + m.getPath() + ": no input placed it");
                }
            } catch (IOException e) {
                return new Staging.Failure(FailureClass.INFRASTRUCTURE, "could not prepare " + m.getPath() + ": " + message(e));
            }
        }
        return null;
    }

    /** Uploads after an exit 0; each reported as {@code <url> <- <path> (<bytes> bytes)}. */
    Staging.Published publish(Path workspace, List<Upload> uploads) {
        List<String> done = new ArrayList<>();
        for (Upload u : uploads) {
            try {
                List<Path> matches = matches(workspace, u.getFrom());
                if (matches.isEmpty() && !Globs.isGlob(u.getFrom())) {
                    return new Staging.Published(List.of(), new Staging.Failure(FailureClass.USER,
                            "exited 0 but left no " + shown(u, u.getFrom()) + " to upload to " + u.getUrl()));
                }
                Path named = Globs.isGlob(u.getFrom()) ? null : inside(workspace, u.getFrom());
                boolean directory = named != null && Files.isDirectory(named);
                for (Path file : matches) {
                    String relative = workspace.relativize(file).toString();
                    String url = u.getUrl();
                    if (directory) {
                        url = child(url, named.relativize(file).toString());
                    } else if (named == null) {
                        String cut = u.getPrefix() == null || u.getPrefix().isEmpty() ? relative
                                : Path.of(u.getPrefix()).relativize(Path.of(relative)).toString();
                        url = child(url, cut);
                    }
                    long bytes = put(file, url);
                    String containerPath = u.getShownAs() != null && named != null && !directory ? u.getShownAs()
                            : relative.startsWith("tes/fs/") ? relative.substring("tes/fs".length()) : relative;
                    done.add(url + " <- " + containerPath + " (" + bytes + " bytes)");
                }
            } catch (Missing e) {
                return new Staging.Published(List.of(), new Staging.Failure(FailureClass.USER, e.getMessage()));
            } catch (ObjectStore.NotFound e) {
                return new Staging.Published(List.of(), new Staging.Failure(FailureClass.USER,
                        "could not upload " + shown(u, u.getFrom()) + " to " + u.getUrl() + ": " + e.getMessage()));
            } catch (Exception e) {
                return new Staging.Published(List.of(), new Staging.Failure(FailureClass.INFRASTRUCTURE,
                        "could not upload " + shown(u, u.getFrom()) + " to " + u.getUrl() + ": " + message(e)));
            }
        }
        return new Staging.Published(done, null);
    }

    private void fetchObject(Fetch f, Path target) throws Exception {
        if (!f.getDirectory()) {
            cache.get().fetch(ObjectLocation.parse(f.getUrl()), target);
            return;
        }
        ObjectLocation prefix = ObjectLocation.parsePrefix(f.getUrl());
        String base = prefix.key().isEmpty() || prefix.key().endsWith("/") ? prefix.key() : prefix.key() + "/";
        Files.createDirectories(target);
        for (ObjectStore.Listed object : store.get().list(new ObjectLocation(prefix.bucket(), base))) {
            Path file = inside(target, object.location().key().substring(base.length()));
            Files.createDirectories(file.getParent());
            cache.get().fetch(object.location(), file);
        }
    }

    private void download(String url, Path target) throws Exception {
        HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = r.body()) {
            if (r.statusCode() == 404 || r.statusCode() == 410 || r.statusCode() == 403 || r.statusCode() == 401) {
                throw new Missing("the server answered " + r.statusCode());
            }
            if (r.statusCode() / 100 != 2) throw new IOException("the server answered " + r.statusCode());
            Path partial = target.resolveSibling(target.getFileName() + ".partial");
            Files.copy(body, partial, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private long put(Path file, String url) throws Exception {
        if (url.startsWith("s3://")) {
            store.get().upload(file, ObjectLocation.parse(url));
        } else {
            Path to = shared(url);
            Files.createDirectories(to.getParent());
            Files.copy(file, to, StandardCopyOption.REPLACE_EXISTING);
        }
        return Files.size(file);
    }

    /** A file:// URL as a path, which must lie under the shared root (real paths: no symlink out). */
    private Path shared(String url) throws Missing, IOException {
        Path path = Path.of(URI.create(url).getPath()).normalize();
        if (!path.startsWith(sharedRoot)) {
            throw new Missing("file:// paths must lie under this node's shared root " + sharedRoot
                    + " (FLASH_SHARED_ROOT), not " + path);
        }
        if (Files.exists(path) && !path.toRealPath().startsWith(sharedRoot.toRealPath())) {
            throw new Missing(path + " leads out of the shared root " + sharedRoot);
        }
        return path;
    }

    private static void copyTree(Path from, Path to) throws Missing, IOException {
        if (!Files.exists(from)) throw new Missing(from + " does not exist");
        if (!Files.isDirectory(from)) {
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        try (var walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isSymbolicLink(p)) continue; // never follow a link out of the shared tree
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** The files an upload names: one file, every file of a directory, or what a glob matches. */
    private static List<Path> matches(Path workspace, String from) throws IOException, Missing {
        List<Path> found = new ArrayList<>();
        if (!Globs.isGlob(from)) {
            Path path = inside(workspace, from);
            if (!Files.exists(path)) return found;
            if (!Files.isDirectory(path)) return List.of(path);
            try (var walk = Files.walk(path)) {
                walk.filter(Files::isRegularFile).forEach(found::add);
            }
            return found;
        }
        String fixed = Globs.fixedPrefix(from);
        Path base = inside(workspace, fixed.contains("/") ? fixed.substring(0, fixed.lastIndexOf('/')) : "");
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + from);
        if (!Files.isDirectory(base)) return found;
        try (var walk = Files.walk(base)) {
            walk.filter(Files::isRegularFile).filter(p -> glob.matches(workspace.relativize(p))).sorted().forEach(found::add);
        }
        return found;
    }

    private static Path inside(Path dir, String relative) {
        Path path = dir.resolve(relative).normalize();
        if (!path.startsWith(dir)) throw new IllegalArgumentException(relative + " leads out of " + dir);
        return path;
    }

    private static String child(String url, String relative) {
        return (url.endsWith("/") ? url : url + "/") + relative.replace('\\', '/');
    }

    private static String shown(Upload u, String fallback) {
        return u.getShownAs() != null ? u.getShownAs() : fallback;
    }

    /** Containers run as an unprivileged user: what Flash places must be readable and, for directories, writable. */
    private static void open(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            try (var walk = Files.walk(path)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    p.toFile().setReadable(true, false);
                    if (Files.isDirectory(p)) {
                        p.toFile().setExecutable(true, false);
                        p.toFile().setWritable(true, false);
                    }
                }
            }
        } else {
            path.toFile().setReadable(true, false);
        }
        for (Path p = path.getParent(); p != null && p.getFileName() != null && !p.getFileName().toString().equals("jobs"); p = p.getParent()) {
            p.toFile().setExecutable(true, false);
            p.toFile().setReadable(true, false);
            p.toFile().setWritable(true, false);
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
