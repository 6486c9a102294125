package io.flash.common.serde;

import io.apicurio.registry.serde.avro.AvroSerde;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/** Avro values through the schema registry (Apicurio serdes, Confluent wire format). */
public final class RegistryValueSerdes implements ValueSerdes {

    private final String registryUrl;

    public RegistryValueSerdes(String registryUrl) {
        this.registryUrl = registryUrl;
    }

    @Override
    public <V extends SpecificRecord> Serde<V> forValue(Class<V> type) {
        AvroSerde<V> serde = new AvroSerde<>();
        serde.configure(RegistryConfig.serdeProperties(registryUrl), false);
        return serde;
    }
}
