package io.flash.common.state;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * A keyed table a scheduling core keeps its state in, with no store technology in sight: Kafka
 * Streams' state stores behind it in a service ({@code io.flash.common.streams.StoreTable}), a map
 * in a test ({@link MemoryTable}).
 */
public interface Table<V> {

    V get(String key);

    void put(String key, V value);

    void delete(String key);

    /** Every entry, in key order. */
    void forEach(BiConsumer<String, V> action);

    /** Every value, in key order. */
    default List<V> values() {
        List<V> values = new ArrayList<>();
        forEach((key, value) -> values.add(value));
        return values;
    }
}
