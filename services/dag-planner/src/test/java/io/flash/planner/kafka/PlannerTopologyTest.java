package io.flash.planner.kafka;

import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.core.ShardSizing;
import io.flash.planner.core.cache.ResultCache;
import io.flash.schema.*;
import org.apache.kafka.streams.*;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class PlannerTopologyTest {

    private TopologyHarness harness;
    private TestInputTopic<String, JobAccepted> accepted;
    private TestInputTopic<String, TaskEvent> events;
    private ReadyAttempts ready;
    private TestOutputTopic<String, TaskReadyBatch> readyBatches;
    private TestOutputTopic<String, JobStatus> status;
    private TestOutputTopic<String, JobResult> results;
    private TestInputTopic<String, JobCommand> commands;
    private TestOutputTopic<String, TaskSummary> unitStatus;
    private final MutableClock clock = new MutableClock(10_000);

    @BeforeEach
    void setUp() {
        harness = new TopologyHarness("planner-test", clock.instant(),
                topics -> PlannerTopology.build(topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock));
        var topics = harness.topics;
        commands = harness.input(topics.jobsCommands);
        unitStatus = harness.output(topics.tasksStatus);
        accepted = harness.input(topics.jobsAccepted);
        events = harness.input(topics.tasksEvents);
        readyBatches = harness.output(topics.tasksReadyBatches);
        ready = new ReadyAttempts(readyBatches, harness);
        status = harness.output(topics.jobsStatus);
        results = harness.output(topics.jobsResults);
    }

    @AfterEach
    void tearDown() {
        harness.close();
    }

    @Test
    void acceptedJobEmitsReadyAttemptsAndStatus() {
        accepted.pipeInput("j", job("j", task("a"), task("b", "a")));

        var records = ready.readKeyValuesToList();
        assertEquals(1, records.size());
        assertEquals("j", records.get(0).key, "keyed by job id, like its task events");
        assertEquals("j.a.1", records.get(0).value.getAttemptId());
        JobStatus s = status.readValue();
        assertEquals(JobState.RUNNING, s.getState());
        assertEquals(2, s.getTasksTotal());
        KeyValueStore<String, WholeJob> jobs = harness.driver.getKeyValueStore(PlannerTopology.WHOLE_JOBS_STORE);
        assertEquals(List.of(TaskState.READY), jobs.get("j").getUnits().stream().map(TaskSummary::getState).toList());
        assertEquals(List.of("a", "b"), jobs.get("j").getJob().getTaskNames());
    }

    @Test
    void theSameJobAcceptedTwiceRunsOnce() {
        accepted.pipeInput("j", job("j", task("a")));
        accepted.pipeInput("j", job("j", task("a")));
        assertEquals(1, ready.readValuesToList().size());
    }

    @Test
    void eventsDriveTheJobToExactlyOneResult() {
        accepted.pipeInput("j", job("j", task("a")));
        TaskReady a = ready.readValue();
        events.pipeInput("j", event(a, TaskEventType.DISPATCHED));
        events.pipeInput("j", event(a, TaskEventType.PLACED));
        events.pipeInput("j", event(a, TaskEventType.STARTED));
        TaskEvent done = event(a, TaskEventType.SUCCEEDED);
        done.setExitCode(0);
        done.setStdoutTail("hello\n");
        events.pipeInput("j", done);
        events.pipeInput("j", done); // duplicate delivery

        var all = results.readValuesToList();
        assertEquals(1, all.size(), "exactly one result");
        JobResult result = all.get(0);
        assertEquals(JobState.SUCCEEDED, result.getState());
        assertEquals("hello\n", result.getTasks().get(0).getStdoutTail());
        assertEquals("n1", result.getTasks().get(0).getNodeId());
        var statuses = status.readValuesToList();
        assertEquals(2, statuses.size(), "accepted, succeeded: its start was superseded within the tick, and dispatched and placed"
                + " change nothing the job's status says");
        assertEquals(JobState.SUCCEEDED, statuses.get(1).getState());
        assertNotNull(statuses.get(1).getStartedAt(), "the end says when it started");
        assertEquals(List.of(TaskState.SUCCEEDED), unitStatus.readValuesToList().stream().map(TaskSummary::getState).toList(),
                "a unit that ends within the tick is published once, with its end");
    }

    @Test
    void aPassingStepIsPublishedOnlyIfItLastsATick() {
        accepted.pipeInput("j", job("j", task("a"), task("b"), task("c")));
        TaskReady a = ready.readValue(), b = ready.readValue(), c = ready.readValue();
        assertTrue(unitStatus.isEmpty(), "ready waits for the tick");
        status.readValuesToList(); // the job's acceptance: at once, so its id resolves
        events.pipeInput("j", event(a, TaskEventType.DISPATCHED));
        events.pipeInput("j", event(b, TaskEventType.DISPATCHED));
        events.pipeInput("j", event(a, TaskEventType.PLACED));
        events.pipeInput("j", event(b, TaskEventType.PLACED));
        events.pipeInput("j", event(b, TaskEventType.STARTED));
        assertTrue(unitStatus.isEmpty(), "dispatched, placed and running wait for the tick");
        assertTrue(status.isEmpty(), "the job's first start waits for the tick too");

        clock.advance(1_000);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        Map<String, TaskSummary> lasting = unitStatus.readValuesToList().stream()
                .collect(Collectors.toMap(TaskSummary::getTaskId, u -> u));
        assertEquals(3, lasting.size(), "each unit's step that lasted a tick is published, once: " + lasting.keySet());
        assertEquals(TaskState.PLACED, lasting.get("j.a").getState());
        assertEquals("n1", lasting.get("j.a").getNodeId());
        assertEquals(TaskState.RUNNING, lasting.get("j.b").getState());
        assertEquals(TaskState.READY, lasting.get("j.c").getState());
        List<JobStatus> jobSteps = status.readValuesToList();
        assertEquals(1, jobSteps.size());
        assertNotNull(jobSteps.get(0).getStartedAt(), "the job's start lasted: published a tick later");
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertTrue(unitStatus.isEmpty());
        assertTrue(status.isEmpty());

        TaskEvent held = event(c, TaskEventType.HELD);
        held.setFrameworkId(null); // the dispatcher's: no framework can take it
        held.setReason("no framework has a node with 99 cpu");
        events.pipeInput("j", held);
        assertEquals(List.of(TaskState.READY), unitStatus.readValuesToList().stream().map(TaskSummary::getState).toList(),
                "why a unit waits is published at once");
    }

    @Test
    void aJobWhoseShardsKeepSucceedingShowsItsLatestCountsOnceATickAndItsEndAtOnce() {
        accepted.pipeInput("j", job("j", scattered("s", 5, 1)));
        List<TaskReady> shards = ready.readValuesToList();
        assertEquals(5, shards.size());
        status.readValuesToList(); // the job's acceptance
        succeed(shards.get(0));
        clock.advance(600);
        succeed(shards.get(1));
        assertTrue(status.isEmpty(), "a success that leaves the job running waits for the tick");

        clock.advance(600); // 1.2 s after the first success, 0.6 s after the second
        harness.driver.advanceWallClockTime(Duration.ofMillis(1_200));
        List<JobStatus> counted = status.readValuesToList();
        assertEquals(1, counted.size(), "a later success does not put off the first one's tick: " + counted);
        assertEquals(2, counted.get(0).getTasksSucceeded(), "the latest counts");
        assertEquals(JobState.RUNNING, counted.get(0).getState());

        succeed(shards.get(2));
        succeed(shards.get(3));
        assertTrue(status.isEmpty());
        succeed(shards.get(4));
        List<JobStatus> ended = status.readValuesToList();
        assertEquals(1, ended.size(), "the end at once, superseding the counts that waited: " + ended);
        assertEquals(JobState.SUCCEEDED, ended.get(0).getState());
        assertEquals(5, ended.get(0).getTasksSucceeded());
        clock.advance(2_000);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(status.isEmpty(), "nothing older is published after the end");
    }

    @Test
    void aShardsFailureIsPublishedOnTheJobAtOnce() {
        TaskDefinition flaky = scattered("s", 3, 1);
        flaky.setContinueOnFailure(true);
        accepted.pipeInput("j", job("j", flaky));
        List<TaskReady> shards = ready.readValuesToList();
        status.readValuesToList();
        TaskEvent failed = event(shards.get(0), TaskEventType.FAILED);
        failed.setExitCode(3);
        events.pipeInput("j", failed);
        List<JobStatus> now = status.readValuesToList();
        assertEquals(1, now.size(), "why the job has a failed unit is news at once");
        assertEquals(1, now.get(0).getTasksFailed());
        assertTrue(now.get(0).getMessage().contains("exit code 3"), now.get(0).getMessage());
    }

    private void succeed(TaskReady shard) {
        TaskEvent done = event(shard, TaskEventType.SUCCEEDED);
        done.setExitCode(0);
        events.pipeInput("j", done);
    }

    @Test
    void eventsOfUnknownJobsAreIgnored() {
        events.pipeInput("nobody", event(ready("nobody", task("a"), 1), TaskEventType.SUCCEEDED));
        assertTrue(results.isEmpty());
        assertTrue(status.isEmpty());
    }

    private static TaskEvent failed(TaskReady r, TaskEventType type, FailureClass cause, Integer exitCode) {
        TaskEvent e = event(r, type);
        e.setFailureClass(cause);
        e.setExitCode(exitCode);
        return e;
    }

    @Test
    void aLostAttemptIsPublishedAgainAsANewAttempt() {
        accepted.pipeInput("j", job("j", task("a")));
        TaskReady first = ready.readValue();
        events.pipeInput("j", failed(first, TaskEventType.LOST, FailureClass.NODE_LOST, null));
        TaskReady second = ready.readValue();
        assertEquals("j.a.2", second.getAttemptId());
        TaskSummary unit = unitStatus.readValuesToList().stream().reduce((x, y) -> y).orElseThrow();
        assertEquals(1, unit.getInfraFailures());
        assertTrue(unit.getReason().contains("was lost with its node n1"), unit.getReason());
    }

    @Test
    void aUserRetryWaitsOutItsBackoff() {
        TaskDefinition flaky = task("a");
        flaky.setMaxAttempts(2);
        flaky.setBackoffSeconds(5L);
        accepted.pipeInput("j", job("j", flaky));
        events.pipeInput("j", failed(ready.readValue(), TaskEventType.FAILED, FailureClass.USER, 1));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(ready.isEmpty(), "still in its backoff");
        clock.advance(6_000);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(4));
        assertEquals("j.a.2", ready.readValue().getAttemptId());
    }

    @Test
    void aCancelCommandBecomesACancelRequestAndEndsTheJob() {
        accepted.pipeInput("j", job("j", task("a"), task("b", "a")));
        TaskReady a = ready.readValue();
        events.pipeInput("j", event(a, TaskEventType.DISPATCHED));
        TaskEvent placed = event(a, TaskEventType.PLACED);
        placed.setShard(1);
        events.pipeInput("j", placed);
        commands.pipeInput("j", JobCommand.newBuilder().setJobId("j").setAction(JobAction.CANCEL).setReason("test").setAt(1L).build());
        TaskReady cancel = ready.readValue();
        assertTrue(cancel.getCancel());
        assertEquals("ecs", cancel.getCancelFramework());
        assertEquals(1, cancel.getCancelShard());
        events.pipeInput("j", failed(a, TaskEventType.CANCELLED, FailureClass.CANCELLED, 137));
        JobResult result = results.readValue();
        assertEquals(JobState.CANCELLED, result.getState());
        assertEquals("cancelled: test", result.getReason());
    }

    private static CacheEntry entry(String key, long createdAt, long bytes) {
        return CacheEntry.newBuilder().setScope("owner/alice").setCacheKey(key).setJobId("j").setTaskId("j.t").setAttemptId("j.t.1")
                .setOutputs(List.of(new OutputFile("out", bytes, "sha256:00"))).setCreatedAt(createdAt).setLastUsedAt(createdAt).build();
    }

    /** docs/caching.md, "Eviction": past the age bound, then the oldest past the entry or byte bound, tombstoned each round. */
    @Test
    void theCacheIndexIsKeptWithinItsBoundsByTombstones() {
        PlannerTopology.CacheSettings small = new PlannerTopology.CacheSettings(ResultCache.Sharing.OWNER,
                new ResultCache.Limits(Duration.ofDays(1).toMillis(), 1_000, 2), Duration.ofMinutes(1));
        try (TopologyHarness bounded = new TopologyHarness("evictor-test", clock.instant(), topics -> PlannerTopology.build(topics,
                RetryPolicy.defaults(), ShardSizing.defaults(), small, Duration.ofSeconds(1), Duration.ofMillis(5), clock))) {
            TestInputTopic<String, CacheEntry> index = bounded.input(bounded.topics.cacheEntries);
            long now = clock.instant().toEpochMilli();
            index.pipeInput("owner/alice|v2:old", entry("v2:old", now - Duration.ofDays(2).toMillis(), 1));
            index.pipeInput("owner/alice|v2:a", entry("v2:a", now - 3_000, 1));
            index.pipeInput("owner/alice|v2:b", entry("v2:b", now - 2_000, 1));
            index.pipeInput("owner/alice|v2:c", entry("v2:c", now - 1_000, 1));
            index.pipeInput("owner/alice|v2:gone", entry("v2:gone", now - 500, 1));
            index.pipeInput("owner/alice|v2:gone", null); // dropped by the planner: not counted
            TestOutputTopic<String, CacheEntry> out = bounded.output(bounded.topics.cacheEntries);
            out.readKeyValuesToList(); // what was piped in
            bounded.driver.advanceWallClockTime(Duration.ofMinutes(1));
            List<KeyValue<String, CacheEntry>> dropped = out.readKeyValuesToList();
            assertEquals(List.of("owner/alice|v2:old", "owner/alice|v2:a"), dropped.stream().map(kv -> kv.key).toList(),
                    "older than a day, then the oldest while more than two remain");
            assertTrue(dropped.stream().allMatch(kv -> kv.value == null), "as tombstones, which the nodes' views apply");

            index.pipeInput("owner/alice|v2:big", entry("v2:big", now, 2_000));
            out.readKeyValuesToList();
            bounded.driver.advanceWallClockTime(Duration.ofMinutes(1));
            assertEquals(List.of("owner/alice|v2:b", "owner/alice|v2:c", "owner/alice|v2:big"),
                    out.readKeyValuesToList().stream().map(kv -> kv.key).toList(), "past 1,000 bytes named: the oldest go until it fits");
        }
    }

    @Test
    void everyTopicItReadsIsOneQuarkusWaitsFor() throws Exception {
        io.flash.common.testing.ListedTopics.assertListed(PlannerTopology.build(harness.topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock), java.util.Map.of());
    }

    @Test
    void itsSecureModeGrantAllowsEveryTopicItReadsAndWrites() throws Exception {
        io.flash.common.testing.ListedTopics.assertGranted(PlannerTopology.build(harness.topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock), io.flash.common.setup.KafkaGrants.planner());
    }

    @Test
    void whatIsMadeReadyTravelsInEnvelopesOfAtMostAThousandOnceTheIntervalIsOver() {
        accepted.pipeInput("j", job("j", scattered("s", 2_500, 1), task("t")));
        assertTrue(readyBatches.isEmpty(), "nothing is sent before the envelope interval is over");
        KeyValueStore<String, TaskReadyBatch> outbox = harness.driver.getKeyValueStore(PlannerTopology.OUTBOX_STORE);
        assertEquals(2_501, pendingInStore(outbox), "meanwhile in the store, so a commit keeps them");
        sendEnvelopes();
        assertEquals(0, pendingInStore(outbox), "sent: none left pending");
        var envelopes = readyBatches.readKeyValuesToList();
        assertEquals(List.of(1_000, 1_000, 501), envelopes.stream().map(kv -> kv.value.getItems().size()).toList(),
                "2,500 shards and a task: three records, not 2,501");
        assertTrue(envelopes.stream().allMatch(kv -> kv.key.equals("j")), "keyed by job id, like its task events");
        List<TaskReady> all = envelopes.stream().flatMap(kv -> kv.value.getItems().stream()).toList();
        assertEquals(0, all.get(0).getShardIndex());
        assertEquals(2_499, all.get(2_499).getShardIndex(), "in the order the planner made them");
        assertEquals("j.t.1", all.get(2_500).getAttemptId());

        commands.pipeInput("j", JobCommand.newBuilder().setJobId("j").setAction(JobAction.CANCEL).setReason("test").setAt(0L).build());
        sendEnvelopes();
        List<TaskReadyBatch> cancels = readyBatches.readValuesToList();
        assertEquals(List.of(1_000, 1_000, 501), cancels.stream().map(b -> b.getItems().size()).toList());
        assertTrue(cancels.stream().allMatch(b -> b.getItems().stream().allMatch(TaskReady::getCancel)));
    }

    @Test
    void anEnvelopeStaysUnderHalfAMebibyte() {
        TaskDefinition big = task("big");
        big.setCommand(List.of("sh", "-c", "x".repeat(100_000)));
        accepted.pipeInput("j", job("j", big, task("small")));
        sendEnvelopes();
        List<TaskReadyBatch> envelopes = readyBatches.readValuesToList();
        assertEquals(1, envelopes.size(), "a 100 kB task and a small one share one record");
        accepted.pipeInput("k", job("k", withCommand(scattered("s", 20, 1), "y".repeat(100_000))));
        sendEnvelopes();
        List<Integer> sizes = readyBatches.readValuesToList().stream().map(b -> b.getItems().size()).toList();
        assertEquals(20, sizes.stream().mapToInt(Integer::intValue).sum());
        assertTrue(sizes.stream().allMatch(n -> n <= 5), "20 shards of 100 kB: at most 5 per record, " + sizes);
    }

    /** Jobs accepted within one interval share envelopes: 100 one-task jobs are one record, not 100. */
    @Test
    void oneTaskJobsAcceptedWithinAnIntervalShareAnEnvelopeInTheirOrder() {
        for (int i = 0; i < 100; i++) accepted.pipeInput("j" + i, job("j" + i, task("a")));
        sendEnvelopes();
        var envelopes = readyBatches.readKeyValuesToList();
        assertEquals(1, envelopes.size());
        assertEquals("j0", envelopes.get(0).key, "keyed by its first attempt's job: every job of a task is in its partition");
        assertEquals(IntStream.range(0, 100).mapToObj(i -> "j" + i + ".a.1").toList(),
                envelopes.get(0).value.getItems().stream().map(TaskReady::getAttemptId).toList());
    }

    private static int pendingInStore(KeyValueStore<String, TaskReadyBatch> outbox) {
        int items = 0;
        try (var all = outbox.all()) {
            while (all.hasNext()) items += all.next().value.getItems().size();
        }
        return items;
    }

    private void sendEnvelopes() {
        harness.driver.advanceWallClockTime(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL);
    }

    private static TaskDefinition withCommand(TaskDefinition task, String script) {
        task.setCommand(List.of("sh", "-c", script));
        return task;
    }

    /** The attempts of the planner's envelopes, one by one, as the dispatcher takes them once an interval is over. */
    private static final class ReadyAttempts {
        private final TestOutputTopic<String, TaskReadyBatch> batches;
        private final TopologyHarness harness;
        private final Deque<KeyValue<String, TaskReady>> taken = new ArrayDeque<>();

        ReadyAttempts(TestOutputTopic<String, TaskReadyBatch> batches, TopologyHarness harness) {
            this.batches = batches;
            this.harness = harness;
        }

        private void take() {
            harness.driver.advanceWallClockTime(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL);
            for (KeyValue<String, TaskReadyBatch> kv : batches.readKeyValuesToList()) {
                kv.value.getItems().forEach(r -> taken.add(KeyValue.pair(kv.key, r)));
            }
        }

        TaskReady readValue() {
            take();
            KeyValue<String, TaskReady> next = taken.poll();
            assertNotNull(next, "no attempt was made ready");
            return next.value;
        }

        List<KeyValue<String, TaskReady>> readKeyValuesToList() {
            take();
            List<KeyValue<String, TaskReady>> all = new ArrayList<>(taken);
            taken.clear();
            return all;
        }

        List<TaskReady> readValuesToList() {
            return readKeyValuesToList().stream().map(kv -> kv.value).toList();
        }

        boolean isEmpty() {
            take();
            return taken.isEmpty();
        }
    }
}
