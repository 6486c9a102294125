package io.flash.executor.files;

import io.flash.common.cache.CacheKeys;
import io.flash.common.store.ObjectLocation;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.OutputFile;
import io.flash.schema.TaskDefinition;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The cache key of each unit this node runs, made when it is placed (its inputs staged, its image
 * here), and the identity of each output it left when it succeeds (docs/caching.md). A unit that
 * cannot be keyed (it reads a stream, an http(s) input, an input that cannot be read) runs as
 * before and reports no key: the cache only ever saves work, it never stops any.
 */
public final class UnitKeys {

    /** A keyed attempt: its key, and the workspace its outputs will be in. */
    public record Keyed(String key, Beneath workspace, List<String> outputs) {
    }

    private final Scratch scratch;
    private final Supplier<ObjectStore> store;
    private final Map<String, Keyed> byAttempt = new ConcurrentHashMap<>();

    public UnitKeys(Scratch scratch, Supplier<ObjectStore> store) {
        this.scratch = scratch;
        this.store = store;
    }

    /**
     * Keys the attempt about to start.
     *
     * @param imageIds an image as the task names it → its identity on this node's engine
     * @return why it is not keyed, or empty
     */
    public Optional<String> key(String attemptId, TaskDefinition task, Path workspace, UnaryOperator<String> imageIds) {
        if (task.getStream() != null) return Optional.of("it reads a stream");
        Beneath files = new Beneath(workspace, scratch);
        try {
            String key = CacheKeys.key(task, new InputIdentities(files, task.getUpstreamKeys(), imageIds, this::remote));
            byAttempt.put(attemptId, new Keyed(key, files, List.copyOf(task.getOutputs())));
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The attempt's key, if it has one. */
    public Optional<String> keyOf(String attemptId) {
        return Optional.ofNullable(byAttempt.get(attemptId)).map(Keyed::key);
    }

    /** The attempt's key, forgotten here: asked once, when it ends. */
    public Optional<Keyed> take(String attemptId) {
        return Optional.ofNullable(byAttempt.remove(attemptId));
    }

    /** Each declared output as it is now: its size and identity ({@code sha256:} of a file, {@code tree:} of a directory). */
    public static List<OutputFile> outputs(Keyed keyed) throws IOException {
        List<OutputFile> files = new ArrayList<>();
        for (String path : keyed.outputs()) {
            if (keyed.workspace().kind(path) == Beneath.Kind.ABSENT) continue;
            long size = keyed.workspace().files(path).stream().mapToLong(Beneath.Entry::size).sum();
            files.add(new OutputFile(path, size, InputIdentities.identity(keyed.workspace(), path)));
        }
        return files;
    }

    /** An object by its store's ETag; a web server's answer is not trusted to identify content yet. */
    private String remote(String url) throws IOException {
        if (!ObjectLocation.isObjectUri(url)) throw new IOException("an http(s) input is not keyed (docs/caching.md)");
        try {
            return "etag:" + store.get().etag(ObjectLocation.parse(url));
        } catch (ObjectStore.NotFound e) {
            throw new IOException("input " + url + " is not in its store", e);
        } catch (RuntimeException e) {
            throw new IOException("input " + url + ": " + e.getMessage(), e);
        }
    }
}
