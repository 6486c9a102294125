package io.flash.common.serde;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/** Makes the serde of an Avro value type. */
public interface ValueSerdes {
    <V extends SpecificRecord> Serde<V> forValue(Class<V> type);

    /**
     * The serde of a state store's values (its changelog's records). By default the topic's; the
     * registry's names the schema by its record, not the changelog topic, so that the platform's
     * setup can register it without knowing each service's stores.
     */
    default <V extends SpecificRecord> Serde<V> forStoredValue(Class<V> type) {
        return forValue(type);
    }
}
