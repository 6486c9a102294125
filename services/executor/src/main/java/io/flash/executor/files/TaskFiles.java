package io.flash.executor.files;

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
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A task's fetches, mount sources and uploads (docs/tes.md): files placed in the job workspace from
 * inline content, {@code s3://} (through the node's cache), {@code file://} under the node's shared
 * root, or {@code http(s)://} (under the {@link AddressRule}); uploaded after an exit 0 to
 * {@code s3://} or {@code file://}. Everything in the workspace is reached through {@link Beneath}:
 * no link a task made is followed. A missing source, a path outside the shared root, a refused
 * address or a link is the task's own failure; an unreachable store or server is the infrastructure's.
 */
final class TaskFiles {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private static final int MAX_REDIRECTS = 5;

    private final Supplier<ObjectStore> store;
    private final Supplier<InputCache> cache;
    private final Path sharedRoot;
    private final Scratch scratch;
    private final AddressRule addresses;

    TaskFiles(Supplier<ObjectStore> store, Supplier<InputCache> cache, Path sharedRoot, Scratch scratch, AddressRule addresses) {
        this.store = store;
        this.cache = cache;
        this.sharedRoot = sharedRoot.toAbsolutePath().normalize();
        this.scratch = scratch;
        this.addresses = addresses;
    }

    /** A source the task named that is not there, or not allowed: the task's failure. */
    static final class Missing extends Exception {
        Missing(String message) {
            super(message);
        }
    }

    /** @return null when every fetch is in place and every mount has its source */
    StagingFailure stage(Path workspace, List<Fetch> fetches, List<Mount> mounts) {
        Beneath beneath = new Beneath(workspace, scratch);
        for (Fetch f : fetches) {
            String what = f.getContent() != null ? "inline input " + shownPath(f.getTo()) : f.getUrl();
            try {
                Beneath.Kind there = beneath.kind(f.getTo());
                if (there == Beneath.Kind.LINK) {
                    throw new Beneath.Refused(shownPath(f.getTo()) + " is a symbolic link an earlier executor left; Flash writes "
                            + "no input through a link");
                }
                if (there != Beneath.Kind.ABSENT) continue; // an earlier executor of the job placed it
                Path made = f.getContent() != null || !f.getDirectory() || !f.getUrl().startsWith("s3://")
                        ? scratch.file() : scratch.directory();
                try {
                    if (f.getContent() != null) {
                        Files.writeString(made, f.getContent());
                    } else if (f.getUrl().startsWith("s3://")) {
                        fetchObject(f, made);
                    } else if (f.getUrl().startsWith("file:")) {
                        made = copyTree(shared(f.getUrl()), made);
                    } else {
                        download(f.getUrl(), made);
                    }
                    beneath.place(made, f.getTo());
                } finally {
                    scratch.discard(made);
                }
            } catch (Missing | ObjectStore.NotFound | Beneath.Refused | AddressRule.Refused e) {
                return new StagingFailure(FailureClass.USER, "input " + what + ": " + e.getMessage());
            } catch (Exception e) {
                return StagingFailure.unexpected("could not fetch input " + what, e);
            }
        }
        for (Mount m : mounts) {
            try {
                if (!m.getReadOnly()) {
                    beneath.directories(m.getSource());
                    continue;
                }
                Beneath.Kind source = beneath.kind(m.getSource());
                if (source == Beneath.Kind.ABSENT) {
                    return new StagingFailure(FailureClass.USER, "nothing to mount at " + m.getPath() + ": no input placed it");
                }
                if (source != Beneath.Kind.FILE && source != Beneath.Kind.DIRECTORY) {
                    return new StagingFailure(FailureClass.USER, "the source of the mount " + m.getPath()
                            + " is a symbolic link or special file; Flash binds only files and directories, never a link");
                }
            } catch (Beneath.Refused e) {
                return new StagingFailure(FailureClass.USER, "could not prepare " + m.getPath() + ": " + e.getMessage());
            } catch (IOException e) {
                return new StagingFailure(FailureClass.INFRASTRUCTURE, "could not prepare " + m.getPath() + ": " + message(e));
            }
        }
        return null;
    }

    /** Uploads after an exit 0; each reported as {@code <url> <- <path> (<bytes> bytes)}. */
    Published publish(Path workspace, List<Upload> uploads) {
        Beneath beneath = new Beneath(workspace, scratch);
        List<String> done = new ArrayList<>();
        for (Upload u : uploads) {
            try {
                List<Beneath.Entry> matches = matches(beneath, u.getFrom());
                if (matches.isEmpty() && !Globs.isGlob(u.getFrom())) {
                    return new Published(List.of(), new StagingFailure(FailureClass.USER,
                            "exited 0 but left no " + shown(u, u.getFrom()) + " to upload to " + u.getUrl()));
                }
                String named = Globs.isGlob(u.getFrom()) ? null : Path.of(u.getFrom()).normalize().toString();
                boolean directory = named != null && beneath.kind(named) == Beneath.Kind.DIRECTORY;
                for (Beneath.Entry file : matches) {
                    String relative = file.path();
                    String url = u.getUrl();
                    if (directory) {
                        url = child(url, Path.of(named).relativize(Path.of(relative)).toString());
                    } else if (named == null) {
                        String cut = u.getPrefix() == null || u.getPrefix().isEmpty() ? relative
                                : Path.of(u.getPrefix()).relativize(Path.of(relative)).toString();
                        url = child(url, cut);
                    }
                    put(beneath, file, url);
                    String containerPath = u.getShownAs() != null && named != null && !directory ? u.getShownAs()
                            : relative.startsWith("tes/fs/") ? relative.substring("tes/fs".length()) : relative;
                    done.add(url + " <- " + containerPath + " (" + file.size() + " bytes)");
                }
            } catch (Missing e) {
                return new Published(List.of(), new StagingFailure(FailureClass.USER, e.getMessage()));
            } catch (Beneath.Refused e) {
                return new Published(List.of(), new StagingFailure(FailureClass.USER,
                        "could not upload " + shown(u, u.getFrom()) + " to " + u.getUrl() + ": " + e.getMessage()));
            } catch (ObjectStore.NotFound e) {
                return new Published(List.of(), new StagingFailure(FailureClass.USER,
                        "could not upload " + shown(u, u.getFrom()) + " to " + u.getUrl() + ": " + e.getMessage()));
            } catch (Exception e) {
                return new Published(List.of(), new StagingFailure(FailureClass.INFRASTRUCTURE,
                        "could not upload " + shown(u, u.getFrom()) + " to " + u.getUrl() + ": " + message(e)));
            }
        }
        return new Published(done, null);
    }

    /** Fetches into {@code made} in the scratch directory: one object, or every object under a prefix. */
    private void fetchObject(Fetch f, Path made) throws Exception {
        if (!f.getDirectory()) {
            cache.get().fetch(ObjectLocation.parse(f.getUrl()), made);
            return;
        }
        ObjectLocation prefix = ObjectLocation.parsePrefix(f.getUrl());
        String base = prefix.key().isEmpty() || prefix.key().endsWith("/") ? prefix.key() : prefix.key() + "/";
        for (ObjectStore.Listed object : store.get().list(new ObjectLocation(prefix.bucket(), base))) {
            Path file = made.resolve(object.location().key().substring(base.length())).normalize();
            if (!file.startsWith(made)) throw new Missing(object.location() + " leads out of " + f.getTo());
            Files.createDirectories(file.getParent());
            cache.get().fetch(object.location(), file);
        }
    }

    /** Downloads under the address rule, checked again at every redirect. */
    private void download(String url, Path made) throws Exception {
        URI at = URI.create(url);
        for (int hop = 0; ; hop++) {
            addresses.check(at);
            HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(at).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = r.body()) {
                int status = r.statusCode();
                if (status / 100 == 3 && r.headers().firstValue("Location").isPresent()) {
                    if (hop >= MAX_REDIRECTS) throw new Missing("more than " + MAX_REDIRECTS + " redirects from " + url);
                    at = at.resolve(r.headers().firstValue("Location").get());
                    continue;
                }
                if (status == 404 || status == 410 || status == 403 || status == 401) {
                    throw new Missing("the server answered " + status);
                }
                if (status / 100 != 2) throw new IOException("the server answered " + status);
                Files.copy(body, made, StandardCopyOption.REPLACE_EXISTING);
                return;
            }
        }
    }

    private void put(Beneath beneath, Beneath.Entry file, String url) throws Exception {
        try (InputStream in = beneath.read(file.path())) {
            if (url.startsWith("s3://")) {
                store.get().upload(in, file.size(), ObjectLocation.parse(url));
                return;
            }
            Path to = shared(url);
            Files.createDirectories(to.getParent());
            Path partial = Files.createTempFile(to.getParent(), ".flash-", ".partial");
            try {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(partial);
            }
        }
    }

    /** A file:// URL as a path, which must lie under the shared root (real paths: no symlink out). */
    private Path shared(String url) throws Missing, IOException {
        Path path = Path.of(URI.create(url).getPath()).normalize();
        if (!path.startsWith(sharedRoot)) {
            throw new Missing("file:// paths must lie under this node's shared root " + sharedRoot
                    + " (FLASH_SHARED_ROOT), not " + path);
        }
        Path existing = path;
        while (existing != null && !Files.exists(existing)) existing = existing.getParent();
        if (existing != null && !existing.toRealPath().startsWith(sharedRoot.toRealPath())) {
            throw new Missing(path + " leads out of the shared root " + sharedRoot);
        }
        return path;
    }

    /** Copies a shared file or tree into the scratch directory; returns what was made. */
    private static Path copyTree(Path from, Path made) throws Missing, IOException {
        if (!Files.exists(from)) throw new Missing(from + " does not exist");
        if (!Files.isDirectory(from)) {
            Files.copy(from, made, StandardCopyOption.REPLACE_EXISTING);
            return made;
        }
        Files.delete(made);
        try (var walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isSymbolicLink(p)) continue; // never follow a link out of the shared tree
                Path target = made.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return made;
    }

    /** The files an upload names: one file, every file of a directory, or what a glob matches. */
    private static List<Beneath.Entry> matches(Beneath beneath, String from) throws IOException {
        if (!Globs.isGlob(from)) {
            return beneath.kind(from) == Beneath.Kind.ABSENT ? List.of() : beneath.files(from);
        }
        String fixed = Globs.fixedPrefix(from);
        String base = fixed.contains("/") ? fixed.substring(0, fixed.lastIndexOf('/')) : "";
        if (beneath.kind(base) != Beneath.Kind.DIRECTORY) return List.of();
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + from);
        List<Beneath.Entry> found = new ArrayList<>();
        for (Beneath.Entry e : beneath.files(base)) if (glob.matches(Path.of(e.path()))) found.add(e);
        return found;
    }

    private static String child(String url, String relative) {
        return (url.endsWith("/") ? url : url + "/") + relative.replace('\\', '/');
    }

    private static String shown(Upload u, String fallback) {
        return u.getShownAs() != null ? u.getShownAs() : fallback;
    }

    private static String shownPath(String relative) {
        return relative.startsWith("tes/fs/") ? relative.substring("tes/fs".length()) : relative;
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
