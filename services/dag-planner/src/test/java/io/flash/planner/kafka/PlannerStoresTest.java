package io.flash.planner.kafka;

import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.planner.core.RetryPolicy;
import io.flash.schema.*;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** How the planner keeps a job in its stores (StreamsPlanStore): a small job whole, a larger one split, each part gone once it concludes. */
class PlannerStoresTest {

    private static final String APP = "planner-stores-test";
    private TopologyHarness harness;
    private TestInputTopic<String, JobAccepted> accepted;
    private TestInputTopic<String, TaskEvent> events;
    private TestOutputTopic<String, TaskReadyBatch> readyBatches;
    private TestOutputTopic<String, JobStatus> status;
    private TestOutputTopic<String, JobResult> results;
    private KeyValueStore<String, WholeJob> wholeJobs;
    private KeyValueStore<String, JobProgress> jobs;
    private KeyValueStore<String, TaskDefinition> specs;
    private KeyValueStore<String, LogicalTask> tasks;
    private KeyValueStore<String, TaskSummary> units;
    private final MutableClock clock = new MutableClock(10_000);

    @BeforeEach
    void setUp() {
        harness = new TopologyHarness(APP, clock.instant(),
                topics -> PlannerTopology.build(topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock));
        accepted = harness.input(harness.topics.jobsAccepted);
        events = harness.input(harness.topics.tasksEvents);
        readyBatches = harness.output(harness.topics.tasksReadyBatches);
        status = harness.output(harness.topics.jobsStatus);
        results = harness.output(harness.topics.jobsResults);
        wholeJobs = harness.driver.getKeyValueStore(PlannerTopology.WHOLE_JOBS_STORE);
        jobs = harness.driver.getKeyValueStore(PlannerTopology.JOBS_STORE);
        specs = harness.driver.getKeyValueStore(PlannerTopology.SPECS_STORE);
        tasks = harness.driver.getKeyValueStore(PlannerTopology.TASKS_STORE);
        units = harness.driver.getKeyValueStore(PlannerTopology.UNITS_STORE);
    }

    @AfterEach
    void tearDown() {
        harness.close();
    }

    /** The point of keeping a small job whole: one changelog record per record handled, not one per part. */
    @Test
    void aOneTaskJobWritesOneChangelogRecordWhenAcceptedAndOneWhenItEnds() {
        accepted.pipeInput("j", job("j", task("a")));
        assertEquals(Map.of("planner-whole-jobs", 1L), changelogRecords(), "its header, definition, counters and unit in one record");
        TaskReady a = ready().get(0);
        events.pipeInput("j", event(a, TaskEventType.SUCCEEDED));
        assertEquals(JobState.SUCCEEDED, results.readValue().getState());
        assertEquals(Map.of("planner-whole-jobs", 1L), changelogRecords(), "its end and the dropping of its parts in one record");
    }

    /** A job's parts leave the stores in the commit that concludes it; its header stays. */
    @Test
    void aSmallJobIsKeptWholeAndOnlyItsHeaderStaysOnceItConcludes() {
        accepted.pipeInput("j", job("j", task("a"), scattered("b", 2, 1, "a")));
        accepted.pipeInput("k", job("k", task("a")));
        List<TaskReady> roots = ready();
        events.pipeInput("j", event(roots.get(0), TaskEventType.SUCCEEDED));
        List<TaskReady> shards = ready();
        assertEquals(TaskState.SUCCEEDED, unitOf(wholeJobs.get("j"), "j.a").getState(), "a running job keeps its finished units");
        for (TaskReady shard : shards) events.pipeInput("j", event(shard, TaskEventType.SUCCEEDED));
        assertEquals(JobState.SUCCEEDED, results.readValue().getState());

        WholeJob j = wholeJobs.get("j");
        assertEquals(JobState.SUCCEEDED, j.getJob().getState(), "the header stays");
        assertEquals(List.of(), j.getSpecs());
        assertEquals(List.of(), j.getTasks());
        assertEquals(List.of(), j.getUnits());
        assertNull(jobs.get("j"), "a small job is not kept split as well");
        assertNull(units.get("j.a"));
        assertNotNull(unitOf(wholeJobs.get("k"), "k.a"), "a running job keeps everything");
        assertLateNewsChangesNothing(shards.get(0));
    }

    @Test
    void aLargerJobKeepsItsPartsUnderTheirOwnKeysAndOnlyItsHeaderOnceItConcludes() {
        int shardCount = StreamsPlanStore.WHOLE_JOB_PARTS + 1;
        accepted.pipeInput("j", job("j", task("a"), scattered("b", shardCount, 1, "a")));
        events.pipeInput("j", event(ready().get(0), TaskEventType.SUCCEEDED));
        List<TaskReady> shards = ready();
        assertEquals(shardCount, shards.size());
        assertNull(wholeJobs.get("j"), "more units than a whole job holds");
        assertEquals(TaskState.SUCCEEDED, units.get("j.a").getState());
        for (TaskReady shard : shards) events.pipeInput("j", event(shard, TaskEventType.SUCCEEDED));
        assertEquals(JobState.SUCCEEDED, results.readValue().getState());

        for (String unit : List.of("j.a", "j.b.s0", "j.b.s1")) assertNull(units.get(unit), unit);
        assertNull(specs.get("j/a"));
        assertNull(tasks.get("j/b"));
        assertEquals(JobState.SUCCEEDED, jobs.get("j").getState(), "the header stays");
        assertLateNewsChangesNothing(shards.get(0));
    }

    /** A job a planner of the split-only layout kept is read where it is, and concludes there. */
    @Test
    void aSmallJobKeptSplitBeforeWholeJobsExistedRunsOnWhereItIs() {
        accepted.pipeInput("j", job("j", task("a"), task("b", "a")));
        WholeJob whole = wholeJobs.get("j");
        wholeJobs.delete("j");
        jobs.put("j", whole.getJob());
        whole.getSpecs().forEach(spec -> specs.put("j/" + spec.getName(), spec));
        whole.getTasks().forEach(task -> tasks.put("j/" + task.getName(), task));
        whole.getUnits().forEach(unit -> units.put(unit.getTaskId(), unit));

        events.pipeInput("j", event(ready().get(0), TaskEventType.SUCCEEDED));
        assertEquals(TaskState.READY, units.get("j.b").getState());
        events.pipeInput("j", event(ready().get(0), TaskEventType.SUCCEEDED));
        assertEquals(JobState.SUCCEEDED, results.readValue().getState());
        assertNull(wholeJobs.get("j"), "a job never changes how it is kept");
        assertNull(units.get("j.b"));
        assertEquals(JobState.SUCCEEDED, jobs.get("j").getState());
    }

    private void assertLateNewsChangesNothing(TaskReady endedShard) {
        status.readValuesToList();
        accepted.pipeInput("j", job("j", task("a")));
        assertTrue(status.readValue().getMessage().contains("was seen before"), "a repeated submission is still recognised");
        events.pipeInput("j", event(endedShard, TaskEventType.FAILED));
        assertTrue(ready().isEmpty());
        assertTrue(results.isEmpty());
    }

    private static TaskSummary unitOf(WholeJob job, String unitId) {
        return job.getUnits().stream().filter(u -> u.getTaskId().equals(unitId)).findFirst().orElse(null);
    }

    private List<TaskReady> ready() {
        harness.driver.advanceWallClockTime(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL);
        List<TaskReady> all = new ArrayList<>();
        readyBatches.readValuesToList().forEach(batch -> all.addAll(batch.getItems()));
        return all;
    }

    /** Records written to each of the planner's job changelogs since the last call, by store. */
    private Map<String, Long> changelogRecords() {
        return List.of(PlannerTopology.WHOLE_JOBS_STORE, PlannerTopology.JOBS_STORE, PlannerTopology.SPECS_STORE,
                        PlannerTopology.TASKS_STORE, PlannerTopology.UNITS_STORE).stream()
                .collect(Collectors.toMap(store -> store, store -> (long) harness.driver.createOutputTopic(
                        APP + "-" + store + "-changelog", new ByteArrayDeserializer(), new ByteArrayDeserializer()).readRecordsToList().size()))
                .entrySet().stream().filter(e -> e.getValue() > 0)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
}
