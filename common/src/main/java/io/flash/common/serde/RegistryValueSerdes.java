package io.flash.common.serde;

import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeFactory;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.strategy.RecordIdStrategy;
import io.apicurio.registry.serde.config.SerdeConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Avro values through the schema registry (Apicurio serdes, Confluent wire format). A topic's
 * deserializer yields only its own record type: a value of another schema, or one that cannot be
 * read, fails with a {@link SerializationException} that says why in words (unknown schema id, not
 * the wire format, trailing bytes, a length over Avro's limits), which consumers turn into a
 * rejection or a dead letter.
 */
public final class RegistryValueSerdes implements ValueSerdes {

    private final Map<String, Object> properties;
    /** One client for every serde of this instance, each call bounded in time. */
    private final RegistryClientFacade client;

    public RegistryValueSerdes(String registryUrl) {
        this(registryUrl, RegistryConfig.callTimeout());
    }

    public RegistryValueSerdes(String registryUrl, Duration callTimeout) {
        this(RegistryConfig.serdeProperties(registryUrl), registryUrl, callTimeout);
    }

    /** @param registersSchemas false for a client of the secure mode, where only the platform writes the registry */
    public RegistryValueSerdes(String registryUrl, boolean registersSchemas) {
        this(RegistryConfig.serdeProperties(registryUrl, registersSchemas), registryUrl, RegistryConfig.callTimeout());
    }

    private RegistryValueSerdes(Map<String, Object> properties, String registryUrl, Duration callTimeout) {
        this.properties = properties;
        this.client = new BoundedRegistryClient(RegistryClientFacadeFactory.create(new SchemaResolverConfig(properties)),
                RegistryConfig.apiUrl(registryUrl), callTimeout);
    }

    @Override
    public <V extends SpecificRecord> Serde<V> forValue(Class<V> type) {
        return serde(type, properties);
    }

    /** Named by its record in the registry (group: the namespace, artifact: the name), as setup registers every record. */
    @Override
    public <V extends SpecificRecord> Serde<V> forStoredValue(Class<V> type) {
        Map<String, Object> byRecord = new HashMap<>(properties);
        byRecord.put(SerdeConfig.ARTIFACT_RESOLVER_STRATEGY,
                RecordIdStrategy.class.getName());
        return serde(type, byRecord);
    }

    private <V extends SpecificRecord> Serde<V> serde(Class<V> type, Map<String, Object> properties) {
        AvroKafkaSerializer<V> serializer = new AvroKafkaSerializer<>(client);
        serializer.configure(properties, false);
        AvroKafkaDeserializer<V> inner = new AvroKafkaDeserializer<>(client);
        inner.configure(properties, false);
        return Serdes.serdeFrom(serializer, new Explained<>(inner) {
            @Override
            V check(Object value, byte[] data) {
                if (type.isInstance(value)) return type.cast(value);
                throw new SerializationException("value is a " + value.getClass().getSimpleName() + " (schema id "
                        + DecodeFailures.schemaId(data) + "), not a " + type.getName());
            }
        });
    }

    /** Any Flash record, its class picked by the writer's schema (for clients that read several topics at once). */
    public Deserializer<Object> anyValue() {
        AvroKafkaDeserializer<Object> inner = new AvroKafkaDeserializer<>(client);
        inner.configure(properties, false);
        return new Explained<>(inner) {
            @Override
            Object check(Object value, byte[] data) {
                return value;
            }
        };
    }

    private abstract static class Explained<V> implements Deserializer<V> {
        private final Deserializer<?> inner;

        Explained(Deserializer<?> inner) {
            this.inner = inner;
        }

        abstract V check(Object value, byte[] data);

        @Override
        public V deserialize(String topic, byte[] data) {
            return deserialize(topic, null, data);
        }

        @Override
        public V deserialize(String topic, Headers headers, byte[] data) {
            if (data == null) return null; // a tombstone of a compacted topic
            String notWire = DecodeFailures.wireFormatProblem(data);
            if (notWire != null) throw new SerializationException(notWire);
            Object value;
            try {
                value = headers == null ? inner.deserialize(topic, data) : inner.deserialize(topic, headers, data);
            } catch (RuntimeException e) {
                throw new SerializationException(DecodeFailures.explain(data, e), e);
            }
            return value == null ? null : check(value, data);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
