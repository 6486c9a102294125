package io.flash.common.state;

import java.util.TreeMap;
import java.util.function.BiConsumer;

/** A {@link Table} in memory: what the cores' tests run on, and a core's state outside a service. */
public final class MemoryTable<V> implements Table<V> {

    private final TreeMap<String, V> entries = new TreeMap<>();

    @Override
    public V get(String key) {
        return entries.get(key);
    }

    @Override
    public void put(String key, V value) {
        entries.put(key, value);
    }

    @Override
    public void delete(String key) {
        entries.remove(key);
    }

    @Override
    public void forEach(BiConsumer<String, V> action) {
        entries.forEach(action);
    }

    public int size() {
        return entries.size();
    }

    public boolean containsKey(String key) {
        return entries.containsKey(key);
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }
}
