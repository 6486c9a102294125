package io.flash.common.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Splits what one input record produced into envelopes: one list per key, in the order the items
 * were made, each at most {@code maxItems} items and about {@code maxBytes} (an item larger than
 * that goes alone). Items of one {@code sizeClass} (the shards of one task) are taken to be the
 * size of the first of them measured, plus {@link #SLACK_BYTES}, so a scatter of 1,000 shards is
 * measured once, not 1,000 times.
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

    /** Key → its envelopes, keys in the order their first item came. */
    public Map<String, List<List<T>>> split(List<T> items, Function<T, String> key, Function<T, String> sizeClass,
                                           ToIntFunction<T> measure) {
        Map<String, Integer> sizes = new HashMap<>();
        Map<String, List<List<T>>> byKey = new LinkedHashMap<>();
        Map<String, Integer> openBytes = new HashMap<>();
        for (T item : items) {
            String k = key.apply(item);
            int size = sizes.computeIfAbsent(sizeClass.apply(item), c -> measure.applyAsInt(item) + SLACK_BYTES);
            List<List<T>> envelopes = byKey.computeIfAbsent(k, x -> new ArrayList<>());
            List<T> open = envelopes.isEmpty() ? null : envelopes.get(envelopes.size() - 1);
            int bytes = openBytes.getOrDefault(k, 0);
            if (open == null || open.size() >= maxItems || (!open.isEmpty() && bytes + size > maxBytes)) {
                open = new ArrayList<>();
                envelopes.add(open);
                bytes = 0;
            }
            open.add(item);
            openBytes.put(k, bytes + size);
        }
        return byKey;
    }
}
