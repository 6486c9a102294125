package io.flash.dispatcher.topology;

import io.flash.common.serde.PlainAvroSerdes;
import io.flash.common.testing.MutableClock;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.dispatcher.selection.FrameworkSelector;
import io.flash.schema.*;
import org.apache.kafka.streams.*;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class DispatcherTopologyTest {

    private final FlashTopics topics = new FlashTopics(new PlainAvroSerdes());
    private final MutableClock clock = new MutableClock(100_000);
    private TopologyTestDriver driver;
    private TestInputTopic<String, TaskReady> ready;
    private TestInputTopic<String, FrameworkHeartbeat> heartbeats;
    private TestOutputTopic<String, TaskDispatch> ecsTasks;
    private TestOutputTopic<String, TaskEvent> events;

    @BeforeEach
    void setUp() throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dispatcher-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("dispatcher").toString());
        driver = new TopologyTestDriver(DispatcherTopology.build(topics, new FrameworkSelector(15_000), Duration.ofSeconds(1), clock),
                props, Instant.ofEpochMilli(100_000));
        ready = input(topics.tasksReady);
        heartbeats = input(topics.frameworkHeartbeats);
        ecsTasks = output(topics.frameworkTasks("ecs"));
        events = output(topics.tasksEvents);
    }

    private <V> TestInputTopic<String, V> input(Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    private <V> TestOutputTopic<String, V> output(Topic<String, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keySerde().deserializer(), topic.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void routesAReadyAttemptToTheFrameworkFromItsHeartbeat() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);

        TaskDispatch dispatch = ecsTasks.readValue();
        assertEquals("ecs", dispatch.getFrameworkId());
        assertEquals(0, dispatch.getShard());
        assertEquals("j.a.1", dispatch.getReady().getAttemptId());
        TaskEvent event = events.readKeyValue().value;
        assertEquals(TaskEventType.DISPATCHED, event.getType());
        assertEquals("ecs", event.getFrameworkId());
    }

    @Test
    void holdsWithAReasonAndReleasesWhenAHeartbeatShowsRoom() {
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);
        TaskEvent held = events.readValue();
        assertEquals(TaskEventType.HELD, held.getType());
        assertEquals("no framework has sent a heartbeat yet", held.getReason());
        assertTrue(ecsTasks.isEmpty());

        clock.advance(2_000);
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        driver.advanceWallClockTime(Duration.ofSeconds(2));

        assertEquals("j.a.1", ecsTasks.readValue().getReady().getAttemptId());
        assertEquals(TaskEventType.DISPATCHED, events.readValue().getType());
        driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(ecsTasks.isEmpty(), "dispatched once, then forgotten");
    }

    @Test
    void failsAnAttemptNoFrameworkCouldEverRun() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        TaskDefinition huge = task("a");
        huge.setResources(new Capacity(64.0, MIB, 0L, 0));
        TaskReady r = ready("j", huge, 1);
        ready.pipeInput(r.getTaskId(), r);
        TaskEvent failed = events.readValue();
        assertEquals(TaskEventType.FAILED, failed.getType());
        assertEquals(FailureClass.UNSCHEDULABLE, failed.getFailureClass());
        assertTrue(failed.getReason().contains("ecs has no node with 64 cpu"), failed.getReason());
    }
}
