package io.flash.planner.core.cache;

import io.flash.common.cache.CacheKeys;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The task-result cache's decisions over its index (docs/caching.md): whether a unit's key has a
 * result its job may use, what a success adds, what a failed verification drops, and what ages or
 * crowds out. No Kafka and no clock: the index is a port, the time an argument.
 */
public final class ResultCache {

    /** One output a cached unit left: where in the workspace, how big, and its content's hash. */
    public record Output(String path, long size, String sha256) {
    }

    /**
     * A unit's result under a scope: the job and attempt that made it, when, when a job last used
     * it (least recently used go first), and its outputs.
     */
    public record Entry(String scope, String key, String jobId, String attemptId, long createdAt, long lastUsedAt,
                        List<Output> outputs) {
        public String id() {
            return ResultCache.id(scope, key);
        }

        public long bytes() {
            return outputs.stream().mapToLong(Output::size).sum();
        }

        Entry usedAt(long now) {
            return new Entry(scope, key, jobId, attemptId, createdAt, now, outputs);
        }
    }

    /** The index: entries by {@link #id}, each read whole. */
    public interface Index {
        Optional<Entry> get(String id);

        void put(Entry entry);

        void remove(String id);

        /** Every entry; eviction reads them all once per round. */
        List<Entry> all();
    }

    /** What a lookup found: a result to verify and use, or why there is none. */
    public sealed interface Answer {
        record Hit(Entry entry) implements Answer {
        }

        record Miss(String why) implements Answer {
        }
    }

    /**
     * The platform's bounds on the index.
     *
     * @param maxAgeMillis an entry older than this is dropped whatever a job asks
     * @param maxBytes     the outputs the entries may name in all; past it the least recently used go
     * @param maxEntries   the entries the index may hold; past it the least recently used go
     */
    public record Limits(long maxAgeMillis, long maxBytes, long maxEntries) {
    }

    private final Index index;

    public ResultCache(Index index) {
        this.index = index;
    }

    public static String id(String scope, String key) {
        return CacheKeys.entryId(scope, key);
    }

    /** Who may use each other's results: an admin setting, {@link Sharing#OWNER} unless widened. */
    public enum Sharing { OWNER, QUEUE, PLATFORM }

    /**
     * The scope a job's units look up and record under: its owner's by default (a user never gets
     * another's outputs), its queue's or the whole platform's when an admin widened it. A job
     * without an owner (open mode) or a queue shares the scope of the others without one.
     */
    public static String scope(Sharing sharing, String owner, String queue) {
        return switch (sharing) {
            case OWNER -> "owner/" + (owner == null ? "" : owner);
            case QUEUE -> "queue/" + (queue == null ? "" : queue);
            case PLATFORM -> "platform";
        };
    }

    /**
     * @param maxAgeMillis the job's own bound ({@code maxAge}), or null for the platform's alone: an
     *                     older entry is a miss for this job and stays for others
     */
    public Answer lookup(String scope, String key, Long maxAgeMillis, long now) {
        Optional<Entry> found = index.get(id(scope, key));
        if (found.isEmpty()) return new Answer.Miss("no result under this key in scope " + scope);
        Entry entry = found.get();
        if (maxAgeMillis != null && now - entry.createdAt() > maxAgeMillis) {
            return new Answer.Miss("the result of " + entry.attemptId() + " is older than the job's maxAge");
        }
        Entry used = entry.usedAt(now);
        index.put(used);
        return new Answer.Hit(used);
    }

    /** A unit succeeded with these outputs: the newest result of its key is the one kept. */
    public void record(Entry entry) {
        index.put(entry);
    }

    /**
     * A hit whose outputs were missing or changed when copied: the entry is dropped, unless a newer
     * success has replaced it meanwhile.
     */
    public void invalid(String scope, String key, String attemptId) {
        index.get(id(scope, key)).filter(e -> e.attemptId().equals(attemptId)).ifPresent(e -> index.remove(e.id()));
    }

    /** @return the ids dropped: past the platform's age, then the least recently used past either size bound */
    public List<String> evict(Limits limits, long now) {
        List<String> dropped = new ArrayList<>();
        List<Entry> kept = new ArrayList<>();
        for (Entry e : index.all()) {
            if (now - e.createdAt() > limits.maxAgeMillis()) dropped.add(e.id());
            else kept.add(e);
        }
        kept.sort(Comparator.comparingLong(Entry::lastUsedAt).thenComparingLong(Entry::createdAt));
        long bytes = kept.stream().mapToLong(Entry::bytes).sum();
        int first = 0;
        while (first < kept.size() && (bytes > limits.maxBytes() || kept.size() - first > limits.maxEntries())) {
            bytes -= kept.get(first).bytes();
            dropped.add(kept.get(first++).id());
        }
        dropped.forEach(index::remove);
        return dropped;
    }
}
