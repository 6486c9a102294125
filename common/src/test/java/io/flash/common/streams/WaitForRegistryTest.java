package io.flash.common.streams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class WaitForRegistryTest {

    private final List<Duration> pauses = new ArrayList<>();

    /** Fails {@code times} times with {@code failure}, then reads the bytes as a string. */
    private static Deserializer<String> failing(int times, RuntimeException failure) {
        int[] calls = {0};
        return (topic, data) -> {
            if (calls[0]++ < times) throw failure;
            return new String(data);
        };
    }

    private static RuntimeException registrySilent() {
        // The shape BoundedRegistryClient's timeout takes inside the Avro deserializer.
        return new SerializationException("value could not be decoded as Avro with schema 12: TimeoutException",
                new IllegalStateException("the schema registry did not answer within 10000 ms", new TimeoutException()));
    }

    @Test
    void aSilentRegistryIsWaitedForWithLongerPausesUntilItAnswers() {
        var reader = new WaitForRegistry<>(failing(6, registrySilent()), Duration.ofMillis(250), Duration.ofSeconds(2), pauses::add);
        assertEquals("estimate", reader.deserialize("flash.tasks.estimates", "estimate".getBytes()));
        assertEquals(List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(2), Duration.ofSeconds(2)), pauses);
    }

    @Test
    void aRecordThatCannotBeReadFailsAtOnceForTheHandlerToSetAside() {
        RuntimeException bad = new SerializationException("not Avro: the first byte is 0x7b, not the magic byte 0");
        var reader = new WaitForRegistry<>(failing(1, bad), Duration.ofMillis(250), Duration.ofSeconds(2), pauses::add);
        assertSame(bad, assertThrows(SerializationException.class, () -> reader.deserialize("flash.tasks.estimates", "x".getBytes())));
        assertEquals(List.of(), pauses);
    }

    @Test
    void anInterruptedWaitGivesUpWithTheRegistrysFailure() {
        RuntimeException silent = registrySilent();
        var reader = new WaitForRegistry<>(failing(100, silent), Duration.ofMillis(250), Duration.ofSeconds(2), d -> {
            throw new InterruptedException("closing");
        });
        assertSame(silent, assertThrows(SerializationException.class, () -> reader.deserialize("t", "x".getBytes())));
        assertTrue(Thread.interrupted(), "the interrupt is kept for the closing client");
    }
}
