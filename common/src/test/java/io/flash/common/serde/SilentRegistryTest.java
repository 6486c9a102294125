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

    /** A processor decoding a value itself (framework-ecs's dispatches) meets the silent registry in processing: read again, not dead-lettered. */
    @Test
    void aRecordProcessedWhileTheRegistryIsSilentIsReadAgainNotDeadLettered() {
        byte[] value = {0, 0, 0, 0, 7, 2, 'j'};
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> serdes.forValue(TaskEvent.class).deserializer().deserialize("flash.fw.ecs.tasks", value));
        DeadLetterOnError handler = new DeadLetterOnError();
        handler.configure(Map.of("bootstrap.servers", "127.0.0.1:1", "application.id", "test"));
        var context = new org.apache.kafka.streams.errors.ErrorHandlerContext() {
            @Override public String topic() { return "flash.fw.ecs.tasks"; }
            @Override public int partition() { return 1; }
            @Override public long offset() { return 0; }
            @Override public org.apache.kafka.common.header.Headers headers() { return new org.apache.kafka.common.header.internals.RecordHeaders(); }
            @Override public String processorNodeId() { return "shard"; }
            @Override public org.apache.kafka.streams.processor.TaskId taskId() { return new org.apache.kafka.streams.processor.TaskId(0, 1); }
            @Override public long timestamp() { return 1L; }
            @Override public byte[] sourceRawKey() { return "j.a".getBytes(); }
            @Override public byte[] sourceRawValue() { return value; }
        };
        long deadLettered = DeadLetterOnError.deadLettered();
        var response = handler.handle(context, new org.apache.kafka.streams.processor.api.Record<>("j.a", value, 1L),
                new org.apache.kafka.common.errors.SerializationException("value could not be decoded as Avro with schema 7", e));
        assertEquals(org.apache.kafka.streams.errors.ProcessingExceptionHandler.ProcessingHandlerResponse.FAIL, response,
                "the stream thread is replaced and processes it again");
        assertEquals(deadLettered, DeadLetterOnError.deadLettered(), "nothing set aside");
    }

    private static String chain(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) out.append(t).append(" <- ");
        return out.toString();
    }
}
