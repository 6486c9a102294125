package io.flash.ingest.intake;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.flash.common.serde.RegistryConfig;
import io.flash.schema.JobSubmission;
import org.apache.kafka.common.header.Headers;

/** Reads a raw ingest record, and says in words why when it cannot. */
public final class SubmissionDecoder implements AutoCloseable {

    /** Thrown for a record that is not a JobSubmission; the message is the rejection reason. */
    public static final class UnreadableSubmission extends Exception {
        UnreadableSubmission(String message) {
            super(message);
        }
    }

    private final AvroKafkaDeserializer<Object> deserializer = new AvroKafkaDeserializer<>();

    public SubmissionDecoder(String registryUrl) {
        deserializer.configure(RegistryConfig.serdeProperties(registryUrl), false);
    }

    public JobSubmission decode(String topic, Headers headers, byte[] value) throws UnreadableSubmission {
        if (value == null || value.length == 0) {
            throw new UnreadableSubmission("empty record value: publish a JobSubmission serialized as Avro through the schema registry");
        }
        if (value.length < 5 || value[0] != 0) {
            throw new UnreadableSubmission("value is not Avro in the schema-registry wire format (magic byte 0 + 4-byte schema id); "
                    + "publish JobSubmission with an Avro serializer connected to the schema registry (Confluent protocol or Apicurio)");
        }
        Object decoded;
        try {
            decoded = deserializer.deserialize(topic, headers, value);
        } catch (RuntimeException e) {
            throw new UnreadableSubmission("value could not be decoded as Avro: " + rootMessage(e));
        }
        if (decoded instanceof JobSubmission submission) {
            return submission;
        }
        String type = decoded == null ? "null" : decoded.getClass().getSimpleName();
        throw new UnreadableSubmission("value is a " + type + ", not a io.flash.schema.JobSubmission");
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return message.length() > 300 ? message.substring(0, 300) + "…" : message;
    }

    @Override
    public void close() {
        deserializer.close();
    }
}
