package io.flash.common.deadletter;

import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * How a plain consumer loop (outside Kafka Streams) meets a record: decoded from its bytes, or set
 * aside on flash.dead-letter with why and said in the log, so no record stops the loop and none is
 * passed over unseen. A tombstone decodes to null without being set aside.
 *
 * @param <V> the record's value type
 */
public final class SetAside<V> {

    private final String service;
    private final String what;
    private final Deserializer<V> decoder;
    private final Producer<String, byte[]> deadLetters;
    private final Consumer<String> log;

    /**
     * @param service     who sets records aside (the dead letter's {@code flash.service} header)
     * @param what        what a record should be, for the reason ("cluster command")
     * @param deadLetters a producer of raw bytes: the record is kept as it came
     * @param log         where the one line per record set aside goes (the service's logger)
     */
    public SetAside(String service, String what, Deserializer<V> decoder, Producer<String, byte[]> deadLetters, Consumer<String> log) {
        this.service = service;
        this.what = what;
        this.decoder = decoder;
        this.deadLetters = deadLetters;
        this.log = log;
    }

    /** The record's value, or null: a tombstone, or a record set aside because it cannot be read. */
    public V decode(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) return null;
        try {
            return decoder.deserialize(record.topic(), record.headers(), record.value());
        } catch (RuntimeException e) {
            setAside(record, "undecodable " + what + ": " + DeadLetters.rootMessage(e));
            return null;
        }
    }

    /** Sets the record aside for good (its offset is committed with the rest): it is never retried. */
    public void setAside(ConsumerRecord<String, byte[]> record, String reason) {
        log.accept("dead-lettered " + DeadLetters.source(record.topic(), record.partition(), record.offset()) + ": " + reason);
        deadLetters.send(DeadLetters.of(service, record.topic(), record.partition(), record.offset(), record.key(), record.value(), reason));
    }
}
