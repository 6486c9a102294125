package io.flash.common.deadletter;

import io.flash.common.errors.RootCause;
import io.flash.common.topics.TopicNames;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The one shape of a record set aside on {@code flash.dead-letter}: the original key and value bytes
 * unchanged, with headers saying why ({@code flash.reason}), where it came from
 * ({@code flash.source} = topic-partition@offset) and who set it aside ({@code flash.service}).
 * A dead-lettered record's offset is committed: it is never retried.
 */
public final class DeadLetters {

    public static final String REASON = "flash.reason";
    public static final String SOURCE = "flash.source";
    public static final String SERVICE = "flash.service";
    /** Reasons are cut to this length: a reason quoting hostile input must not be a large record of its own. */
    static final int MAX_REASON_CHARS = 1000;

    private DeadLetters() {
    }

    public static <K> ProducerRecord<K, byte[]> of(String service, String topic, int partition, long offset,
                                                   K key, byte[] value, String reason) {
        ProducerRecord<K, byte[]> dead = new ProducerRecord<>(TopicNames.DEAD_LETTER, key, value);
        String cut = reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS) + "…";
        dead.headers().add(REASON, cut.getBytes(StandardCharsets.UTF_8));
        dead.headers().add(SOURCE, source(topic, partition, offset).getBytes(StandardCharsets.UTF_8));
        dead.headers().add(SERVICE, service.getBytes(StandardCharsets.UTF_8));
        return dead;
    }

    public static String source(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    /** The innermost message of a failure, for a reason a user can read. */
    public static String rootMessage(Throwable e) {
        return RootCause.message(e);
    }
}
