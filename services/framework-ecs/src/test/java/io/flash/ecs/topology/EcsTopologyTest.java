package io.flash.ecs.topology;

import io.flash.common.serde.PlainAvroSerdes;
import io.flash.common.testing.MutableClock;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.schema.*;
import org.apache.kafka.streams.*;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class EcsTopologyTest {

    private final FlashTopics topics = new FlashTopics(new PlainAvroSerdes());
    private final MutableClock clock = new MutableClock(100_000);
    private TopologyTestDriver driver;
    private TestInputTopic<String, TaskDispatch> tasks;
    private TestInputTopic<String, NodeHeartbeat> nodes;
    private TestInputTopic<String, AttemptEvent> nodeEvents;
    private TestOutputTopic<String, Assignment> assignments;
    private TestOutputTopic<String, TaskEvent> events;
    private TestOutputTopic<String, FrameworkHeartbeat> heartbeats;

    @BeforeEach
    void setUp() throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ecs-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ecs").toString());
        var settings = new EcsTopology.Settings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000);
        driver = new TopologyTestDriver(EcsTopology.build(topics, settings, clock), props, Instant.ofEpochMilli(100_000));
        tasks = input(topics.frameworkTasks("ecs"));
        nodes = input(topics.frameworkNodes("ecs"));
        nodeEvents = input(topics.frameworkNodeEvents("ecs"));
        assignments = output(topics.frameworkAssignments("ecs"));
        events = output(topics.tasksEvents);
        heartbeats = output(topics.frameworkHeartbeats);
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

    private TaskReady dispatch(String job, String name) {
        TaskReady r = ready(job, task(name), 1);
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r)
                .setDispatchedAt(clock.millis()).build());
        return r;
    }

    private AttemptEvent report(TaskReady r, AttemptState state, Integer exitCode) {
        return AttemptEvent.newBuilder().setNodeId("n1").setJobId(r.getJobId()).setTaskId(r.getTaskId())
                .setAttemptId(r.getAttemptId()).setState(state).setExitCode(exitCode).setAt(clock.millis()).build();
    }

    @Test
    void placesOnALiveNodeAndRelaysTheExecutorsReports() {
        nodes.pipeInput("n1", node("n1", 2, 1024 * MIB, clock.millis()));
        TaskReady r = dispatch("j", "a");

        var assignment = assignments.readKeyValue();
        assertEquals("n1", assignment.key, "keyed by node, so the node's partition carries it");
        assertEquals(AssignmentAction.RUN, assignment.value.getAction());
        assertEquals("j.a.1", assignment.value.getAttemptId());
        TaskEvent placed = events.readValue();
        assertEquals(TaskEventType.PLACED, placed.getType());
        assertEquals("n1", placed.getNodeId());

        nodeEvents.pipeInput("n1", report(r, AttemptState.STARTED, null));
        nodeEvents.pipeInput("n1", report(r, AttemptState.SUCCEEDED, 0));
        nodeEvents.pipeInput("n1", report(r, AttemptState.SUCCEEDED, 0)); // duplicate from an executor restart
        var relayed = events.readValuesToList();
        assertEquals(List.of(TaskEventType.STARTED, TaskEventType.SUCCEEDED), relayed.stream().map(TaskEvent::getType).toList());
        assertTrue(events.isEmpty(), "the duplicate report changes nothing");
    }

    @Test
    void queuesUntilANodeHasRoomAndSaysWhy() {
        nodes.pipeInput("n1", node("n1", 0.5, 1024 * MIB, clock.millis()));
        TaskReady first = dispatch("j", "a");
        TaskReady second = dispatch("j", "b");
        assertEquals(List.of(first.getAttemptId()), assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList());
        var evs = events.readValuesToList();
        assertEquals(TaskEventType.HELD, evs.get(1).getType());
        assertEquals("ecs shard 0: 1 node: 1 lack free cpu", evs.get(1).getReason());

        nodeEvents.pipeInput("n1", report(first, AttemptState.SUCCEEDED, 0));
        assertEquals(second.getAttemptId(), assignments.readValue().getAttemptId(), "freed room goes to the queue");
    }

    @Test
    void aSilentNodeLosesAllItsAttemptsInOneBatch() {
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        dispatch("j", "a");
        dispatch("j", "b");
        events.readValuesToList();

        clock.advance(20_000);
        driver.advanceWallClockTime(Duration.ofSeconds(20));
        var lost = events.readValuesToList();
        assertEquals(2, lost.size());
        for (TaskEvent e : lost) {
            assertEquals(TaskEventType.LOST, e.getType());
            assertEquals(FailureClass.NODE_LOST, e.getFailureClass());
            assertTrue(e.getReason().startsWith("node n1 sent no heartbeat for 20 s"), e.getReason());
        }
    }

    @Test
    void heartbeatsTheShardsCapacity() {
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        dispatch("j", "a");
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        var hb = heartbeats.readKeyValuesToList();
        var last = hb.get(hb.size() - 1);
        assertEquals("ecs/0", last.key);
        assertEquals(1, last.value.getNodes());
        assertEquals(4.0, last.value.getTotal().getCpu());
        assertEquals(3.5, last.value.getFree().getCpu(), "the placed attempt's half core is taken");
    }

    @Test
    void killsAttemptsANodeRunsThatTheShardNoLongerTracks() {
        NodeHeartbeat hb = node("n1", 4, 4096 * MIB, clock.millis());
        hb.setRunningAttempts(List.of("old.attempt.1"));
        nodes.pipeInput("n1", hb);
        Assignment kill = assignments.readValue();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals("old.attempt.1", kill.getAttemptId());
    }
}
