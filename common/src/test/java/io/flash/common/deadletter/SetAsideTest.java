package io.flash.common.deadletter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flash.common.topics.TopicNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class SetAsideTest {

    private final MockProducer<String, byte[]> deadLetters = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final List<String> logged = new ArrayList<>();
    private final Deserializer<Integer> digits = (topic, bytes) -> Integer.parseInt(new String(bytes, StandardCharsets.UTF_8));
    private final SetAside<Integer> numbers = new SetAside<>("test-service", "number", digits, deadLetters, logged::add);

    private static ConsumerRecord<String, byte[]> record(String value) {
        return new ConsumerRecord<>("flash.numbers", 3, 42L, "k", value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aReadableRecordIsDecodedAndNothingIsSetAside() {
        assertEquals(7, numbers.decode(record("7")));
        assertTrue(deadLetters.history().isEmpty());
        assertTrue(logged.isEmpty());
    }

    @Test
    void aTombstoneIsNothingToDoNotADeadLetter() {
        assertNull(numbers.decode(record(null)));
        assertTrue(deadLetters.history().isEmpty());
    }

    @Test
    void anUnreadableRecordGoesToTheDeadLetterTopicWithItsBytesWhereItCameFromAndWhy() {
        assertNull(numbers.decode(record("seven")));
        ProducerRecord<String, byte[]> dead = deadLetters.history().get(0);
        assertEquals(TopicNames.DEAD_LETTER, dead.topic());
        assertEquals("k", dead.key());
        assertArrayEquals("seven".getBytes(StandardCharsets.UTF_8), dead.value());
        assertEquals("flash.numbers-3@42", header(dead, DeadLetters.SOURCE));
        assertEquals("test-service", header(dead, DeadLetters.SERVICE));
        assertTrue(header(dead, DeadLetters.REASON).startsWith("undecodable number: For input string"), header(dead, DeadLetters.REASON));
        assertEquals(1, logged.size());
        assertTrue(logged.get(0).startsWith("dead-lettered flash.numbers-3@42: undecodable number"), logged.get(0));
    }

    private static String header(ProducerRecord<String, byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
