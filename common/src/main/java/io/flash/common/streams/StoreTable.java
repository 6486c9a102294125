package io.flash.common.streams;

import io.flash.common.state.Table;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.function.BiConsumer;

/** A {@link Table} over one of a processor's key-value stores (changelogged, restored on takeover). */
public final class StoreTable<V> implements Table<V> {

    private final KeyValueStore<String, V> store;

    public StoreTable(KeyValueStore<String, V> store) {
        this.store = store;
    }

    /** The store named {@code name} of the processor's context. */
    public static <V> StoreTable<V> of(ProcessorContext<?, ?> context, String name) {
        return new StoreTable<>(context.getStateStore(name));
    }

    @Override
    public V get(String key) {
        return store.get(key);
    }

    @Override
    public void put(String key, V value) {
        store.put(key, value);
    }

    /**
     * A put of nothing, which the store takes as a delete: {@code KeyValueStore.delete} reads and
     * deserialises the old value to return it, which no caller here wants (at 100,000 queued shards,
     * 3-4 % of framework-ecs's and the dispatcher's samples went to values read only to be dropped).
     */
    @Override
    public void delete(String key) {
        store.put(key, null);
    }

    @Override
    public void forEach(BiConsumer<String, V> action) {
        try (KeyValueIterator<String, V> it = store.all()) {
            it.forEachRemaining(kv -> action.accept(kv.key, kv.value));
        }
    }
}
