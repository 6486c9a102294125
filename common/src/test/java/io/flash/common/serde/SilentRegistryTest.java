package io.flash.common.serde;

import io.flash.common.streams.DeadLetterOnError;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler.DeserializationHandlerResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A registry that takes the connection and never answers (a hung process, a half-open network):
 * every serde call ends within its bound, as the registry being unreachable — which a stream
 * thread retries instead of dead-lettering a good record.
 */
@Timeout(60)
class SilentRegistryTest {

    private ServerSocket silent;
    private final List<Socket> held = new ArrayList<>();
    private RegistryValueSerdes serdes;

    @BeforeEach
    void start() throws IOException {
        silent = new ServerSocket(0);
        Thread acceptor = new Thread(() -> {
            try {
                while (true) held.add(silent.accept()); // read nothing, answer nothing
            } catch (IOException closed) {
                // the test is over
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        serdes = new RegistryValueSerdes("http://127.0.0.1:" + silent.getLocalPort(), Duration.ofMillis(300));
    }

    @AfterEach
    void stop() throws IOException {
        silent.close();
        for (Socket s : held) s.close();
    }

    @Test
    void aSerializerGivesUpWithinItsBoundAndSaysTheRegistryDidNotAnswer() {
        TaskEvent event = TaskEvent.newBuilder().setJobId("j").setTaskId("j.a").setAttemptId("j.a.1")
                .setType(TaskEventType.QUEUED).setAt(1L).build();
        long start = System.nanoTime();
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> serdes.forValue(TaskEvent.class).serializer().serialize("flash.tasks.events", event));
        long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        assertTrue(seconds < 20, "bounded: 300 ms per call and the client's few retries, took " + seconds + " s");
        assertTrue(DecodeFailures.registryUnreachable(e), "counted as the registry's failure: " + e);
        assertTrue(chain(e).contains("did not answer"), chain(e));
    }

    @Test
    void aRecordReadWhileTheRegistryIsSilentIsReadAgainNotDeadLettered() {
        byte[] value = {0, 0, 0, 0, 7, 2, 'j'}; // wire format, schema id 7: the registry must be asked
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> serdes.forValue(TaskEvent.class).deserializer().deserialize("flash.tasks.events", value));
        assertTrue(DecodeFailures.registryUnreachable(e), "counted as the registry's failure: " + e);

        DeadLetterOnError handler = new DeadLetterOnError();
        handler.configure(Map.of("bootstrap.servers", "127.0.0.1:1", "application.id", "test"));
        var response = handler.handle((org.apache.kafka.streams.errors.ErrorHandlerContext) null, new ConsumerRecord<>("flash.tasks.events", 0, 5L, new byte[0], value), e);
        assertEquals(DeserializationHandlerResponse.FAIL, response, "the stream thread is replaced and reads it again");
    }

    private static String chain(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) out.append(t).append(" <- ");
        return out.toString();
    }
}
