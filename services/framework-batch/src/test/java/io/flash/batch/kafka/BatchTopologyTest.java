package io.flash.batch.kafka;

import io.flash.batch.core.BatchSettings;
import io.flash.batch.core.Workspaces;
import io.flash.common.setup.KafkaGrants;
import io.flash.common.testing.ListedTopics;
import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.*;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The batch adapter's topology: dispatches in, cluster commands out to the worker, the worker's
 * reports in, and task events, logs and heartbeats out; its stores keep what it sent.
 */
class BatchTopologyTest {

    private static final Duration TICK = Duration.ofSeconds(2);
    private final MutableClock clock = new MutableClock(100_000);
    private final Map<String, String> outputs = new HashMap<>();
    private final BatchSettings settings = new BatchSettings("slurm", 500, Duration.ofMinutes(10), Duration.ofSeconds(20), Duration.ofSeconds(60), Duration.ofSeconds(2), DiskType.SSD, true);
    private final TopologyHarness harness = new TopologyHarness("batch-test", Instant.ofEpochMilli(100_000), this::topology);
    private final TestInputTopic<String, TaskDispatch> tasks = harness.input(harness.topics.frameworkTasks("slurm"));
    private final TestInputTopic<String, ClusterReport> reports = harness.input(harness.topics.frameworkClusterReports("slurm"));
    private final TestOutputTopic<String, ClusterCommand> commands = harness.output(harness.topics.frameworkClusterCommands("slurm"));
    private final TestOutputTopic<String, TaskEvent> events = harness.output(harness.topics.tasksEvents);
    private final TestOutputTopic<String, FrameworkHeartbeat> heartbeats = harness.output(harness.topics.frameworkHeartbeats);
    private final TestOutputTopic<String, LogChunk> logs = harness.output(harness.topics.tasksLogs);

    private Topology topology(FlashTopics topics) {
        Workspaces workspaces = new Workspaces() {
            public boolean oomKilled(String jobId, String attemptId) { return false; }
            public boolean timedOut(String jobId, String attemptId) { return false; }
            public Integer exitStatus(String jobId, String attemptId) { return null; }
            public Usage usage(String jobId, String attemptId) { return null; }
            public Outputs outputs(String jobId, List<String> declared) { return new Outputs(List.of(), declared); }
            public String tail(String jobId, String attemptId) { return outputs.get(attemptId); }
            public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) {
                String all = outputs.getOrDefault(attemptId, "");
                return new Output(all.substring((int) Math.min(from, all.length())), all.length(), 0);
            }
        };
        return BatchTopology.build(topics, settings, TICK, workspaces, clock);
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private void look(String phase, Integer exit) {
        clock.advance(TICK.toMillis());
        List<ClusterJobState> jobs = phase == null ? List.of() : List.of(ClusterJobState.newBuilder().setName("slurm.0.j.a.1").setId("100")
                .setPhase(phase).setState(phase).setExitCode(exit).setNode("c1").build());
        reports.pipeInput("0", ClusterReport.newBuilder().setShard(0).setKind(ClusterReportKind.STATES).setJobs(jobs)
                .setPartitions(List.of(ClusterPartition.newBuilder().setName("batch").setNodesUp(1).setCpusTotal(64).setCpusIdle(60)
                        .setMemoryTotal(128L << 30).setMemoryFree(100L << 30).setLabels(Map.of("partition", "batch")).build()))
                .setLookedAt(clock.millis()).setAt(clock.millis()).build());
    }

    @Test
    void aDispatchBecomesAClusterCommandAndTheWorkersReportsBecomeEventsLogsAndHeartbeats() {
        TaskReady r = ready("j", task("a"), 1);
        TaskDispatch dispatch = TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(clock.millis()).build();
        tasks.pipeInput(r.getTaskId(), dispatch);
        var submit = commands.readKeyValue();
        assertEquals("j.a.1", submit.key, "commands are keyed by attempt");
        assertEquals(ClusterAction.SUBMIT, submit.value.getAction());
        assertEquals("slurm.0.j.a.1", submit.value.getJobName());
        var placed = events.readKeyValue();
        assertEquals("j", placed.key, "task events are keyed by job");
        assertEquals(TaskEventType.PLACED, placed.value.getType(), "placed as it is handed to the worker, in the same commit");

        reports.pipeInput("0", ClusterReport.newBuilder().setShard(0).setKind(ClusterReportKind.SUBMITTED).setAttemptId("j.a.1")
                .setClusterJobId("100").setLookedAt(clock.millis()).setAt(clock.millis()).build());
        assertTrue(events.isEmpty(), "the worker's report places it no second time");

        outputs.put("j.a.1", "aligning\n");
        look("RUNNING", null);
        assertEquals(TaskEventType.STARTED, events.readValue().getType());
        var chunk = logs.readKeyValue();
        assertEquals("j.a.1", chunk.key, "log chunks are keyed by attempt");
        assertEquals("aligning\n", chunk.value.getText());
        var hb = heartbeats.readKeyValuesToList();
        assertEquals("slurm/0", hb.get(hb.size() - 1).key);
        assertEquals(64.0, hb.get(hb.size() - 1).value.getTotal().getCpu());

        tasks.pipeInput(r.getTaskId(), dispatch); // a redelivery: the store remembers it
        assertTrue(commands.isEmpty(), "sent once");

        look("SUCCEEDED", 0);
        TaskEvent end = events.readValue();
        assertEquals(TaskEventType.SUCCEEDED, end.getType());
        assertEquals("aligning\n", end.getStdoutTail());
        assertTrue(logs.readValuesToList().stream().anyMatch(LogChunk::getLast), "the log ends with its last chunk");
        assertEquals(ClusterAction.FORGET, commands.readValue().getAction(), "the cluster may let the finished job go");
    }

    @Test
    void aShardThatHearsNothingFromItsWorkerDoesNotHeartbeat() {
        clock.advance(TICK.toMillis());
        harness.driver.advanceWallClockTime(TICK);
        assertTrue(heartbeats.isEmpty(), "no look, no heartbeat: the dispatcher judges the framework down");
        look(null, null);
        assertFalse(heartbeats.isEmpty());
    }

    @Test
    void everyTopicItReadsIsListedForQuarkus() throws Exception {
        ListedTopics.assertListed(topology(harness.topics), Map.of("flash.framework.id", "slurm"));
    }

    @Test
    void itsSecureModeGrantAllowsEveryTopicItReadsAndWrites() throws Exception {
        ListedTopics.assertGranted(topology(harness.topics), KafkaGrants.frameworkGrant("slurm"));
    }
}
