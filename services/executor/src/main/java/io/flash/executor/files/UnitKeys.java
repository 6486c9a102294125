package io.flash.executor.files;

import io.flash.common.cache.CacheKeys;
import io.flash.common.ids.JobIds;
import io.flash.common.store.ObjectLocation;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.OutputFile;
import io.flash.schema.TaskDefinition;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

    /**
     * A keyed attempt: its key, the workspace its outputs will be in, whether the cache may serve it
     * (then what it writes undeclared is looked for), and when it was keyed (after its own staging).
     */
    public record Keyed(String attemptId, String key, Beneath workspace, List<String> outputs, boolean servable, long keyedAt) {
    }

    /** How many undeclared files are named: enough to say what to declare, not a listing. */
    static final int UNDECLARED_NAMED = 10;
    /**
     * How many workspace entries a success's check looks at: each servable success walks its job's
     * workspace, so a workspace of millions of files would cost seconds per unit. Past it the unit
     * is not indexed (a miss later, never a wrong hit).
     */
    static final int LOOKED_AT_MOST = 100_000;

    private final Scratch scratch;
    private final Supplier<ObjectStore> store;
    private final Map<String, Keyed> byAttempt = new ConcurrentHashMap<>();
    /**
     * Per job with a keyed attempt in flight here: what its keyed attempts declare, kept until the
     * last of them ends, so a unit that ended during another's run is not taken for its writer.
     */
    private final Map<String, Set<String>> declaredByJob = new ConcurrentHashMap<>();

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
    public Optional<String> key(String attemptId, TaskDefinition task, Path workspace, UnaryOperator<String> imageIds, long now) {
        if (task.getStream() != null) return Optional.of("it reads a stream");
        Beneath files = new Beneath(workspace, scratch);
        try {
            String key = CacheKeys.key(task, new InputIdentities(files, task.getUpstreamKeys(), imageIds, this::remote));
            declaredByJob.computeIfAbsent(JobIds.jobOfAttempt(attemptId), j -> ConcurrentHashMap.newKeySet()).addAll(task.getOutputs());
            byAttempt.put(attemptId, new Keyed(attemptId, key, files, List.copyOf(task.getOutputs()), task.getCacheScope() != null, now));
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The attempt's key, if it has one. */
    public Optional<String> keyOf(String attemptId) {
        return keyed(attemptId).map(Keyed::key);
    }

    public Optional<Keyed> keyed(String attemptId) {
        return Optional.ofNullable(byAttempt.get(attemptId));
    }

    /** The attempt's key, forgotten here: asked once, when it ends. */
    public Optional<Keyed> take(String attemptId) {
        Keyed taken = byAttempt.remove(attemptId);
        String job = JobIds.jobOfAttempt(attemptId);
        if (taken != null && byAttempt.keySet().stream().noneMatch(a -> JobIds.jobOfAttempt(a).equals(job))) {
            declaredByJob.remove(job);
        }
        return Optional.ofNullable(taken);
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

    /**
     * What a unit the cache may serve wrote in the job workspace since it was keyed and does not
     * declare: a hit would not restore it. The workspace is shared, so what another keyed unit of the
     * job on this node declares is not counted; what anything else wrote meanwhile is (a unit is then
     * not indexed that could have been: never the other way round). Called before {@link #take}.
     */
    public List<String> undeclaredWrites(Keyed keyed) throws IOException {
        if (!keyed.servable()) return List.of();
        Set<String> declared = new HashSet<>(keyed.outputs());
        declared.addAll(declaredByJob.getOrDefault(JobIds.jobOfAttempt(keyed.attemptId()), Set.of()));
        declared.add(WorkDirs.FLASH_DIR);
        return reported(keyed.workspace().modifiedSince(keyed.keyedAt(), path -> declaredAt(declared, path), UNDECLARED_NAMED,
                LOOKED_AT_MOST));
    }

    /**
     * As the attempt's report carries it: a look that stopped short ends in
     * {@link CacheKeys#NOT_LOOKED_THROUGH}, so the planner never takes it for complete.
     */
    static List<String> reported(Beneath.Modified modified) {
        if (modified.lookedThrough()) return modified.paths();
        List<String> paths = new ArrayList<>(modified.paths());
        paths.add(CacheKeys.NOT_LOOKED_THROUGH);
        return paths;
    }

    /**
     * The path or one of the directories it is in is declared: a look per level of the path, not a
     * scan of every declaration (a scatter's shards declare thousands, each success walks them all).
     */
    private static boolean declaredAt(Set<String> declared, String path) {
        if (declared.contains(path)) return true;
        for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
            if (declared.contains(path.substring(0, slash))) return true;
        }
        return false;
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
