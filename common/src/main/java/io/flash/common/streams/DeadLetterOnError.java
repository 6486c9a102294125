package io.flash.common.streams;

import io.flash.common.deadletter.DeadLetters;
import io.flash.common.serde.DecodeFailures;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What a Flash Streams service does with a record it cannot read or whose processing throws: set it
 * aside on {@code flash.dead-letter} with the reason and go on. Without it, a record that can never
 * be handled stops its stream thread, the replaced thread reads the same record again, and the
 * partition is stuck for ever. Set as both {@code deserialization.exception.handler} and
 * {@code processing.exception.handler}; its producer uses the application's own connection settings.
 * A processing failure is also logged as an error with its stack: it is a bug to fix, not input to
 * reject.
 */
public final class DeadLetterOnError implements DeserializationExceptionHandler, ProcessingExceptionHandler {

    private static final Logger LOG = Logger.getLogger(DeadLetterOnError.class.getName());
    private static final AtomicLong DEAD_LETTERED = new AtomicLong();
    /** Streams makes a handler per task; they share one producer per set of connection settings. */
    private static final Map<Map<String, Object>, KafkaProducer<byte[], byte[]>> PRODUCERS = new ConcurrentHashMap<>();

    private KafkaProducer<byte[], byte[]> producer;
    private String service = "streams";

    @Override
    public void configure(Map<String, ?> configs) {
        Object id = configs.get(StreamsConfig.APPLICATION_ID_CONFIG);
        if (id != null) service = id.toString();
        Map<String, Object> props = new HashMap<>();
        configs.forEach((k, v) -> {
            if (k.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) || k.startsWith("security.") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                props.put(k, v);
            }
        });
        props.put(ProducerConfig.CLIENT_ID_CONFIG, service + "-dead-letters");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer = PRODUCERS.computeIfAbsent(props, p -> new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
    }

    @Override
    public DeserializationHandlerResponse handle(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        if (readAgainOnceTheRegistryAnswers("reading", record.topic(), record.partition(), record.offset(), exception)) {
            return DeserializationHandlerResponse.FAIL;
        }
        // Flash's own deserializers explain themselves in a SerializationException; others by their root cause.
        String reason = "not readable as this topic's record type: " + (exception instanceof SerializationException
                && exception.getMessage() != null ? exception.getMessage() : DeadLetters.rootMessage(exception));
        LOG.warning("dead-lettered " + DeadLetters.source(record.topic(), record.partition(), record.offset()) + ": " + reason);
        send(record.topic(), record.partition(), record.offset(), record.key(), record.value(), reason);
        return DeserializationHandlerResponse.CONTINUE;
    }

    @Override
    public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        // A processor that decodes a value itself (a framework's dispatches) meets a silent registry here.
        if (readAgainOnceTheRegistryAnswers("processing", context.topic(), context.partition(), context.offset(), exception)) {
            return ProcessingHandlerResponse.FAIL;
        }
        String reason = "processing failed in " + context.processorNodeId() + ": " + DeadLetters.rootMessage(exception);
        LOG.log(Level.SEVERE, "dead-lettered " + DeadLetters.source(context.topic(), context.partition(), context.offset())
                + " after a processing failure (a bug: please report it with this record)", exception);
        send(context.topic(), context.partition(), context.offset(), context.sourceRawKey(), context.sourceRawValue(), reason);
        return ProcessingHandlerResponse.CONTINUE;
    }

    /**
     * A silent registry is not the record's fault: set aside, a good record would be lost. The caller
     * fails the stream thread, which is replaced (ReplaceFailedThread) and reads the record again from
     * the last commit — after a pause, as a replaced thread would ask a registry that is down at once.
     *
     * @return whether the registry was the cause
     */
    private static boolean readAgainOnceTheRegistryAnswers(String doing, String topic, int partition, long offset, Exception exception) {
        if (!DecodeFailures.registryUnreachable(exception)) return false;
        LOG.warning("the schema registry is unreachable while " + doing + " " + DeadLetters.source(topic, partition, offset)
                + " (" + DeadLetters.rootMessage(exception) + "); the record is read again once it answers");
        try {
            Thread.sleep(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    private void send(String topic, int partition, long offset, byte[] key, byte[] value, String reason) {
        DEAD_LETTERED.incrementAndGet();
        producer.send(DeadLetters.of(service, topic, partition, offset, key, value, reason), (metadata, error) -> {
            if (error != null) LOG.warning("could not write the dead letter of " + DeadLetters.source(topic, partition, offset) + ": " + error);
        });
    }

    /** Records set aside by every handler of this process, for a metric. */
    public static long deadLettered() {
        return DEAD_LETTERED.get();
    }
}
