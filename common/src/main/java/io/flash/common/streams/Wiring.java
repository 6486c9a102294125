package io.flash.common.streams;

import io.flash.common.framework.CatchUp;
import io.flash.common.topics.Topic;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * How a Flash topology is put together from the topic catalogue: sources and sinks take their
 * names and serdes from a {@link Topic}; a processor's stores are persistent, keyed by string,
 * cached (at most one changelog record per key per commit, none for a key created and deleted
 * within it); a global table mirrors a compacted topic.
 */
public final class Wiring {

    private Wiring() {
    }

    public static void source(Topology topology, String name, Topic<String, ?> topic) {
        topology.addSource(name, topic.keySerde().deserializer(), topic.valueSerde().deserializer(), topic.name());
    }

    public static <V> void sink(Topology topology, String name, Topic<String, V> topic, String... parents) {
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer(), parents);
    }

    /** A framework shard's catch-up markers ({@code CatchUp}), each back to the shard's own tasks partition. */
    public static void markerSink(Topology topology, String name, Topic<String, ?> tasks, String... parents) {
        topology.addSink(name, tasks.name(), tasks.keySerde().serializer(), tasks.valueSerde().serializer(),
                (String topic, String key, Object value, int partitions) ->
                        Optional.of(Set.of(CatchUp.shardOf(key) % partitions)), parents);
    }

    /**
     * A changelogged store of {@code processors}, restored on takeover: cached, so a key written
     * several times within a commit is written once, and one written and deleted within it not at all.
     */
    public static <V> void store(Topology topology, String name, Serde<V> values, String... processors) {
        topology.addStateStore(new ShortLivedEntries<>(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name),
                Serdes.String(), values).withCachingEnabled()), processors);
    }

    /**
     * Every instance's in-memory copy of a compacted topic (a tombstone deletes), readable by every
     * task; its reader waits for a silent registry, as a failed global thread stops the whole client.
     */
    public static <V> void globalTable(Topology topology, String storeName, Topic<String, V> topic, Serde<V> stored,
                                       String sourceName, String updaterName) {
        topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(storeName), Serdes.String(), stored)
                        .withLoggingDisabled(), sourceName, topic.keySerde().deserializer(), new WaitForRegistry<>(topic.valueSerde().deserializer()),
                topic.name(), updaterName, putOrDelete(storeName));
    }

    /** The updater of a global store: a value is put, a tombstone deletes. */
    private static <V> ProcessorSupplier<String, V, Void, Void> putOrDelete(String storeName) {
        return () -> new Processor<>() {
            private KeyValueStore<String, V> store;

            @Override
            public void init(ProcessorContext<Void, Void> context) {
                store = context.getStateStore(storeName);
            }

            @Override
            public void process(Record<String, V> record) {
                if (record.value() == null) store.delete(record.key());
                else store.put(record.key(), record.value());
            }
        };
    }
}
