package io.flash.common.streams;

import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

import java.util.Map;

/**
 * A cached store whose entries created and deleted within one commit interval never reach RocksDB
 * or the changelog. Kafka Streams' record cache already keeps one value per key per commit, but on
 * flush it writes a deleted key's tombstone even when the key was never stored before — unless the
 * caching layer has a flush listener, which only the DSL's tables set: with one, it reads the
 * underlying store first and skips a tombstone for a key that is not there. An attempt queued and
 * placed in the same commit (framework-ecs), or held and released in one (dispatcher), cost two
 * records each without it (its put was compacted away, its tombstone was not).
 *
 * <p>The listener itself does nothing: Flash's processors forward what they decide themselves. This
 * reaches into Streams' internals ({@code CachingKeyValueStore}, public classes, not a public API);
 * {@code ShortLivedEntriesTest} holds the behaviour on every Kafka Streams upgrade.
 */
final class ShortLivedEntries<V> implements StoreBuilder<KeyValueStore<String, V>> {

    private final StoreBuilder<KeyValueStore<String, V>> builder;

    ShortLivedEntries(StoreBuilder<KeyValueStore<String, V>> builder) {
        this.builder = builder;
    }

    @Override
    public KeyValueStore<String, V> build() {
        KeyValueStore<String, V> store = builder.build();
        StateStore layer = store;
        while (layer instanceof WrappedStateStore<?, ?, ?> wrapper) {
            if (layer instanceof CachingKeyValueStore caching) {
                caching.setFlushListener(flushed -> { }, false);
                return store;
            }
            layer = wrapper.wrapped();
        }
        return store; // caching disabled: every write reaches the changelog anyway
    }

    @Override
    public StoreBuilder<KeyValueStore<String, V>> withCachingEnabled() {
        builder.withCachingEnabled();
        return this;
    }

    @Override
    public StoreBuilder<KeyValueStore<String, V>> withCachingDisabled() {
        builder.withCachingDisabled();
        return this;
    }

    @Override
    public StoreBuilder<KeyValueStore<String, V>> withLoggingEnabled(Map<String, String> config) {
        builder.withLoggingEnabled(config);
        return this;
    }

    @Override
    public StoreBuilder<KeyValueStore<String, V>> withLoggingDisabled() {
        builder.withLoggingDisabled();
        return this;
    }

    @Override
    public Map<String, String> logConfig() {
        return builder.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
        return builder.loggingEnabled();
    }

    @Override
    public String name() {
        return builder.name();
    }
}
