package io.flash.common.streams;

import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Items a stream task has produced and not yet sent, to be sent together as envelopes at the next
 * flush instead of one record each. They are kept in a (cached) state store, saved after each input
 * record, so a commit — whenever Kafka Streams takes one, a rebalance's included — holds exactly the
 * items its input offsets produced and did not send; a task that starts again (after a crash, on
 * another instance) sends them at its first flush.
 *
 * <p>Kafka Streams has no hook before a commit (docs/performance.md, "Envelopes"), hence the store:
 * items only in memory when a commit took their input would be lost. They are stored in small
 * chunks under keys {@code <prefix>/0, /1, ...}, used again after each flush: the store's cache keeps
 * only a key's last value per commit, so a commit writes one changelog record per chunk in use,
 * not one per item, and an input record rewrites only the last chunk (a few items), not all.
 * Items of one {@code sizeClass} (the shards of one task) are measured once, as the first of them
 * plus {@link Envelopes#SLACK_BYTES}.
 *
 * @param <T> an item
 * @param <E> what the store keeps: a chunk of items as one record
 */
public final class PendingEnvelopes<T, E> {

    /** Items per stored chunk: rewritten whole when an input record adds to it. */
    public static final int CHUNK_ITEMS = 16;

    private static final class Chunk<T> {
        final List<T> items = new ArrayList<>();
        int bytes;
    }

    private final KeyValueStore<String, E> store;
    private final String prefix;
    private final Function<List<T>, E> pack;
    private final Function<T, String> sizeClass;
    private final ToIntFunction<T> measure;
    private final Envelopes limits;
    private final Envelopes chunkLimits;
    private final Map<String, Integer> sizes = new HashMap<>();
    private final List<Chunk<T>> chunks = new ArrayList<>();
    /** The first chunk changed since the last save, or -1. */
    private int firstUnsaved = -1;
    /** Keys the store holds: {@code <prefix>/0 .. /(stored - 1)}. */
    private int stored;
    /** A chunk restored from the store is not added to: new items start the next one. */
    private boolean lastClosed;

    public PendingEnvelopes(KeyValueStore<String, E> store, String prefix, Function<List<T>, E> pack, Function<E, List<T>> unpack,
                            Function<T, String> sizeClass, ToIntFunction<T> measure, Envelopes limits) {
        this.store = store;
        this.prefix = prefix;
        this.pack = pack;
        this.sizeClass = sizeClass;
        this.measure = measure;
        this.limits = limits;
        this.chunkLimits = new Envelopes(Math.min(CHUNK_ITEMS, limits.maxItems()), limits.maxBytes());
        for (E saved = store.get(key(0)); saved != null; saved = store.get(key(stored))) {
            Chunk<T> chunk = new Chunk<>();
            for (T item : unpack.apply(saved)) {
                chunk.items.add(item);
                chunk.bytes += sizeOf(item);
            }
            chunks.add(chunk);
            stored++;
        }
        lastClosed = !chunks.isEmpty();
    }

    private String key(int chunk) {
        return prefix + "/" + chunk;
    }

    private int sizeOf(T item) {
        return sizes.computeIfAbsent(sizeClass.apply(item), c -> measure.applyAsInt(item) + Envelopes.SLACK_BYTES);
    }

    public void add(T item) {
        int size = sizeOf(item);
        Chunk<T> open = chunks.isEmpty() || lastClosed ? null : chunks.get(chunks.size() - 1);
        if (open == null || !chunkLimits.takes(open.items.size(), open.bytes, 1, size)) {
            open = new Chunk<>();
            chunks.add(open);
            lastClosed = false;
        }
        open.items.add(item);
        open.bytes += size;
        if (firstUnsaved < 0) firstUnsaved = chunks.size() - 1;
    }

    /** After each input record (or punctuation) that added items: from here a commit keeps them. */
    public void save() {
        if (firstUnsaved < 0) return;
        for (int i = firstUnsaved; i < chunks.size(); i++) store.put(key(i), pack.apply(new ArrayList<>(chunks.get(i).items)));
        stored = Math.max(stored, chunks.size());
        firstUnsaved = -1;
    }

    /** The envelopes to send now: the items in the order they were added, none pending afterwards. */
    public List<List<T>> drain() {
        if (chunks.isEmpty()) return List.of();
        List<List<T>> envelopes = new ArrayList<>();
        List<T> open = null;
        int openBytes = 0;
        for (Chunk<T> chunk : chunks) {
            for (T item : chunk.items) {
                int size = sizeOf(item);
                if (open == null || !limits.takes(open.size(), openBytes, 1, size)) {
                    open = new ArrayList<>();
                    envelopes.add(open);
                    openBytes = 0;
                }
                open.add(item);
                openBytes += size;
            }
        }
        for (int i = 0; i < stored; i++) store.delete(key(i));
        chunks.clear();
        sizes.clear();
        stored = 0;
        firstUnsaved = -1;
        lastClosed = false;
        return envelopes;
    }

    public int size() {
        return chunks.stream().mapToInt(c -> c.items.size()).sum();
    }
}
