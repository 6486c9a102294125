package io.flash.common.serde;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/** Makes the serde of an Avro value type. */
public interface ValueSerdes {
    <V extends SpecificRecord> Serde<V> forValue(Class<V> type);
}
