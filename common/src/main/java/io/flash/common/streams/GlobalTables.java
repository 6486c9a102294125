package io.flash.common.streams;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/** The updater of a global store that mirrors a compacted topic: a value is put, a tombstone deletes. */
public final class GlobalTables {

    private GlobalTables() {
    }

    public static <V> ProcessorSupplier<String, V, Void, Void> putOrDelete(String storeName) {
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
