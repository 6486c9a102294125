package io.flash.batch.kafka;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.MemoryCluster;
import io.flash.batch.core.BatchSettings;
import io.flash.batch.core.Workspaces;
import io.flash.common.testing.ListedTopics;
import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.schema.*;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** The batch adapter's topology over an in-memory cluster: what it reads and writes, and that its stores keep what it submitted. */
class BatchTopologyTest {

    private static final Duration TICK = Duration.ofSeconds(2);
    private final MutableClock clock = new MutableClock(100_000);
    private final MemoryCluster cluster = new MemoryCluster();
    private final Map<String, String> outputs = new HashMap<>();
    private final BatchSettings settings = new BatchSettings("slurm", 500, Duration.ofMinutes(10), Duration.ofSeconds(20), DiskType.SSD, true);
    private final TopologyHarness harness = new TopologyHarness("batch-test", Instant.ofEpochMilli(100_000), this::topology);
    private final TestInputTopic<String, TaskDispatch> tasks = harness.input(harness.topics.frameworkTasks("slurm"));
    private final TestOutputTopic<String, TaskEvent> events = harness.output(harness.topics.tasksEvents);
    private final TestOutputTopic<String, FrameworkHeartbeat> heartbeats = harness.output(harness.topics.frameworkHeartbeats);
    private final TestOutputTopic<String, LogChunk> logs = harness.output(harness.topics.tasksLogs);

    private Topology topology(io.flash.common.topics.FlashTopics topics) {
        Workspaces workspaces = new Workspaces() {
            public boolean oomKilled(String jobId, String attemptId) { return false; }
            public boolean timedOut(String jobId, String attemptId) { return false; }
            public Integer exitStatus(String jobId, String attemptId) { return null; }
            public Outputs outputs(String jobId, List<String> declared) { return new Outputs(List.of(), declared); }
            public String tail(String jobId, String attemptId) { return outputs.get(attemptId); }
            public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) {
                String all = outputs.getOrDefault(attemptId, "");
                return new Output(all.substring((int) Math.min(from, all.length())), all.length(), 0);
            }
        };
        return BatchTopology.build(topics, settings, TICK, cluster, new JobScripts("slurm", Path.of("/shared/flash"), 128), workspaces, clock);
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private void tick() {
        clock.advance(TICK.toMillis());
        harness.driver.advanceWallClockTime(TICK);
    }

    @Test
    void aDispatchBecomesAClusterJobWhoseStatesLogsAndHeartbeatsGoToTheirTopics() {
        TaskReady r = ready("j", task("a"), 1);
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r)
                .setDispatchedAt(clock.millis()).build());
        assertEquals(List.of("j.a.1"), cluster.submitted);
        var placed = events.readKeyValue();
        assertEquals("j", placed.key, "task events are keyed by job");
        assertEquals(TaskEventType.PLACED, placed.value.getType());

        cluster.set("j.a.1", Cluster.Phase.RUNNING, null);
        outputs.put("j.a.1", "aligning\n");
        tick();
        assertEquals(TaskEventType.STARTED, events.readValue().getType());
        var chunk = logs.readKeyValue();
        assertEquals("j.a.1", chunk.key, "log chunks are keyed by attempt");
        assertEquals("aligning\n", chunk.value.getText());
        var hb = heartbeats.readKeyValuesToList();
        assertFalse(hb.isEmpty());
        assertEquals("slurm/0", hb.get(hb.size() - 1).key);
        assertEquals(64.0, hb.get(hb.size() - 1).value.getTotal().getCpu());

        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r)
                .setDispatchedAt(clock.millis()).build()); // a redelivery: the store remembers it
        assertEquals(List.of("j.a.1"), cluster.submitted, "submitted once");

        cluster.set("j.a.1", Cluster.Phase.SUCCEEDED, 0);
        tick();
        TaskEvent end = events.readValue();
        assertEquals(TaskEventType.SUCCEEDED, end.getType());
        assertEquals("aligning\n", end.getStdoutTail());
        assertTrue(logs.readValuesToList().stream().anyMatch(LogChunk::getLast), "the log ends with its last chunk");
    }

    @Test
    void everyTopicItReadsIsListedForQuarkus() throws Exception {
        ListedTopics.assertListed(topology(harness.topics), Map.of("flash.framework.id", "slurm"));
    }

    @Test
    void itsSecureModeGrantAllowsEveryTopicItReadsAndWrites() throws Exception {
        io.flash.common.testing.ListedTopics.assertGranted(topology(harness.topics), io.flash.common.setup.KafkaGrants.frameworkGrant("slurm"));
    }
}
