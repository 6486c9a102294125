package io.flash.executor.files;

import io.flash.common.cache.CacheKeys;
import io.flash.schema.Fetch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * An attempt's inputs as this node finds them, for its cache key (docs/caching.md): an input an
 * upstream unit made by that unit's key, any other workspace file by its content, read through
 * {@link Beneath} (a link a task made is refused, never followed), a directory by its files' paths
 * and contents, a remote object by what its store says of it.
 */
public final class InputIdentities implements CacheKeys.Identities {

    /** What an object store or web server says identifies an object: its ETag and length. */
    public interface Remote {
        String identity(String url) throws IOException;
    }

    private final Beneath workspace;
    private final Map<String, String> upstreamKeys;
    private final UnaryOperator<String> imageDigests;
    private final Remote remote;

    /**
     * @param upstreamKeys for each input an upstream unit made, that unit's key (the planner knows them)
     * @param imageDigests an image as the task names it → its digest on this node's engine
     */
    public InputIdentities(Beneath workspace, Map<String, String> upstreamKeys, UnaryOperator<String> imageDigests, Remote remote) {
        this.workspace = workspace;
        this.upstreamKeys = upstreamKeys;
        this.imageDigests = imageDigests;
        this.remote = remote;
    }

    @Override
    public String image(String image) {
        return imageDigests.apply(image);
    }

    @Override
    public String input(String path) {
        String upstream = upstreamKeys.get(path);
        if (upstream != null) return CacheKeys.madeBy(upstream, path);
        try {
            return isRemote(path) ? remote.identity(path) : identity(workspace, path);
        } catch (IOException e) {
            throw new UncheckedIOException("input " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String fetch(Fetch fetch) {
        if (fetch.getContent() != null) return CacheKeys.content(fetch.getContent().getBytes(StandardCharsets.UTF_8));
        try {
            return remote.identity(fetch.getUrl());
        } catch (IOException e) {
            throw new UncheckedIOException("fetch " + fetch.getUrl() + ": " + e.getMessage(), e);
        }
    }

    private static boolean isRemote(String path) {
        return path.startsWith("s3://") || path.startsWith("http://") || path.startsWith("https://");
    }

    /** A file by its content; a directory by each file's path and content, in path order; nothing there as absent. */
    public static String identity(Beneath workspace, String path) throws IOException {
        Beneath.Kind kind = workspace.kind(path);
        if (kind == Beneath.Kind.ABSENT) return "absent"; // staging refuses the attempt before it starts: a key never used
        if (kind == Beneath.Kind.FILE) {
            try (InputStream in = workspace.read(path)) {
                return CacheKeys.content(in);
            }
        }
        StringBuilder tree = new StringBuilder(); // each path length-prefixed: a task may put any character in a name
        for (Beneath.Entry file : workspace.files(path)) {
            try (InputStream in = workspace.read(file.path())) {
                tree.append(file.path().length()).append(':').append(file.path()).append(CacheKeys.content(in)).append('\n');
            }
        }
        return "tree:" + CacheKeys.content(tree.toString().getBytes(StandardCharsets.UTF_8));
    }
}
