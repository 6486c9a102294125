package io.flash.common.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Splits items into envelopes, in the order the items were made, each at most {@code maxItems}
 * items and about {@code maxBytes} (an item larger than that goes alone). Items of one
 * {@code sizeClass} (the shards of one task) are taken to be the size of the first of them
 * measured, plus {@link #SLACK_BYTES}, so a scatter of 1,000 shards is measured once, not 1,000 times.
 */
public record Envelopes<T>(int maxItems, int maxBytes) {

    /** Room for what differs between items of one size class (ids, a shard's index). */
    public static final int SLACK_BYTES = 256;

    /** Armada's EventSequence bound, and a quarter of a broker's default largest message. */
    public static <T> Envelopes<T> defaults() {
        return new Envelopes<>(1_000, 512 * 1024);
    }

    public Envelopes {
        if (maxItems < 1 || maxBytes < 1) throw new IllegalArgumentException("an envelope holds at least one item of at least one byte");
    }

    public List<List<T>> split(List<T> items, Function<T, String> sizeClass, ToIntFunction<T> measure) {
        Map<String, Integer> sizes = new HashMap<>();
        List<List<T>> envelopes = new ArrayList<>();
        List<T> open = null;
        int openBytes = 0;
        for (T item : items) {
            int size = sizes.computeIfAbsent(sizeClass.apply(item), c -> measure.applyAsInt(item) + SLACK_BYTES);
            if (open == null || open.size() >= maxItems || (!open.isEmpty() && openBytes + size > maxBytes)) {
                open = new ArrayList<>();
                envelopes.add(open);
                openBytes = 0;
            }
            open.add(item);
            openBytes += size;
        }
        return envelopes;
    }
}
