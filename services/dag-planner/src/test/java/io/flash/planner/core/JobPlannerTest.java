package io.flash.planner.core;

import io.flash.common.cache.CacheKeys;
import io.flash.planner.core.cache.Entries;
import io.flash.planner.core.cache.ResultCache;
import io.flash.planner.core.cache.TaskKeys;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.*;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class JobPlannerTest {

    private final MemoryPlan plan = new MemoryPlan();
    private final JobPlanner planner = new JobPlanner(plan, plan, new RetryPolicy(2, new io.flash.common.resources.MemoryPolicy(2.0, 1L << 30), 2, 3600));

    static TaskEvent ended(TaskReady ready, TaskEventType type, FailureClass cause, Integer exitCode) {
        TaskEvent e = event(ready, type);
        e.setFailureClass(cause);
        e.setExitCode(exitCode);
        return e;
    }

    private static List<String> ids(List<TaskReady> ready) {
        return ready.stream().map(TaskReady::getTaskId).toList();
    }

    @Test
    void diamondRunsEachTaskAfterItsDependencies() {
        planner.accept(job("j", task("a"), task("b", "a"), task("c", "a"), task("d", "b", "c")), 1L);
        List<TaskReady> ready = plan.drainReady();
        assertEquals(List.of("j.a"), ids(ready));

        planner.onEvent(ended(ready.get(0), TaskEventType.SUCCEEDED, null, 0), 2L);
        ready = plan.drainReady();
        assertEquals(List.of("j.b", "j.c"), ids(ready));
        assertEquals(List.of("ecs"), ready.get(0).getDependencyFrameworks(), "locality: where a ran");

        planner.onEvent(ended(ready.get(0), TaskEventType.SUCCEEDED, null, 0), 3L);
        assertTrue(plan.drainReady().isEmpty(), "d still waits for c");
        planner.onEvent(ended(ready.get(1), TaskEventType.SUCCEEDED, null, 0), 4L);
        ready = plan.drainReady();
        assertEquals(List.of("j.d"), ids(ready));
        planner.onEvent(ended(ready.get(0), TaskEventType.SUCCEEDED, null, 0), 5L);

        JobResult result = plan.onlyResult();
        assertEquals(JobState.SUCCEEDED, result.getState());
        assertEquals(0, result.getExitCode());
        assertEquals(4, plan.statuses.get(plan.statuses.size() - 1).getTasksSucceeded());
    }

    /** align reads the reads trim made and the reference no task made; call reads what align made. */
    @Test
    void eachTaskIsHandedTheKeysOfTheUpstreamTasksThatMadeItsInputs() {
        TaskDefinition trim = task("trim");
        trim.setOutputs(List.of("reads.fq"));
        TaskDefinition align = task("align", "trim");
        align.setInputs(List.of("reads.fq", "ref.fa"));
        align.setOutputs(List.of("out.bam"));
        TaskDefinition call = task("call", "align");
        call.setInputs(List.of("out.bam"));
        planner.accept(job("j", trim, align, call), 1L);
        TaskReady first = plan.drainReady().get(0);
        assertEquals(Map.of(), first.getTask().getUpstreamKeys());

        TaskEvent trimmed = ended(first, TaskEventType.SUCCEEDED, null, 0);
        trimmed.setCacheKey("v1:trim");
        OutputFile reads = new OutputFile("reads.fq", 3L, "sha256:abc");
        trimmed.setOutputFiles(List.of(reads));
        planner.onEvent(trimmed, 2L);
        CacheEntry entry = plan.cacheEntries.get(0);
        assertEquals(List.of("owner/alice", "v1:trim", "j", first.getAttemptId(), List.of(reads)),
                List.of(entry.getScope(), entry.getCacheKey(), entry.getJobId(), entry.getAttemptId(), entry.getOutputs()),
                "its result is indexed under its owner's scope");
        TaskReady aligning = plan.drainReady().get(0);
        assertEquals(Map.of("reads.fq", "v1:trim"), aligning.getTask().getUpstreamKeys(), "ref.fa is the node's to hash");

        TaskEvent lostOnce = ended(aligning, TaskEventType.LOST, FailureClass.NODE_LOST, null);
        planner.onEvent(lostOnce, 3L);
        TaskReady retried = plan.drainReady().get(0);
        assertEquals(Map.of("reads.fq", "v1:trim"), retried.getTask().getUpstreamKeys(), "a retry carries them too");

        planner.onEvent(ended(retried, TaskEventType.SUCCEEDED, null, 0), 4L); // its node keyed nothing
        TaskReady calling = plan.drainReady().get(0);
        assertEquals(Map.of(), calling.getTask().getUpstreamKeys(), "an upstream task without a key: the node hashes the file");
        planner.onEvent(ended(calling, TaskEventType.SUCCEEDED, null, 0), 5L);
        assertEquals(1, plan.cacheEntries.size(), "a unit its node did not key is not indexed");
        assertNull(plan.onlyResult().getTasks().stream().filter(t -> t.getName().equals("align")).findFirst().orElseThrow().getCacheKey());
        assertEquals("v1:trim", plan.onlyResult().getTasks().stream().filter(t -> t.getName().equals("trim")).findFirst().orElseThrow()
                .getCacheKey(), "the result names the key each unit succeeded with");
    }

    @Test
    void aTaskThatAsksForTheCacheIsLookedUpInItsOwnersScopeAndAHitIsAResultNotAnEntry() {
        TaskDefinition cached = task("cached");
        cached.setCache(true);
        planner.accept(job("j", cached, task("always", "cached")), 1L);
        TaskReady ready = plan.drainReady().get(0);
        assertEquals("owner/alice", ready.getTask().getCacheScope());

        TaskEvent rejected = event(ready, TaskEventType.STARTED);
        rejected.setCacheRejected("owner/alice|v1:old");
        planner.onEvent(rejected, 2L);
        assertEquals(List.of("owner/alice|v1:old"), plan.droppedEntries, "an entry a node could not use leaves the index");

        TaskEvent hit = ended(ready, TaskEventType.SUCCEEDED, null, 0);
        hit.setCacheKey("v1:cached");
        hit.setCachedFrom("j0.cached.1");
        planner.onEvent(hit, 3L);
        assertEquals(List.of(), plan.cacheEntries, "served from an entry: nothing new to index");
        TaskReady always = plan.drainReady().get(0);
        assertNull(always.getTask().getCacheScope(), "a task that does not ask always runs");
        TaskDefinition uploads = task("uploads");
        uploads.setCache(true);
        uploads.setUploads(List.of(Upload.newBuilder().setFrom("out.txt").setUrl("s3://lab/out.txt").build()));
        assertFalse(TaskKeys.servable(uploads), "a hit would not upload: it runs");
        uploads.setUploads(List.of());
        uploads.setStore("s3://lab/runs");
        assertFalse(TaskKeys.servable(uploads), "a hit would leave nothing under the new job's prefix");
        planner.onEvent(ended(always, TaskEventType.SUCCEEDED, null, 0), 4L);
        assertEquals("j0.cached.1", plan.onlyResult().getTasks().get(0).getCachedFrom(), "the result says where it came from");
    }

    private static TaskSummary unitOf(JobResult result, String name) {
        return result.getTasks().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }

    private static TaskEvent keyed(TaskReady ready, String key) {
        TaskEvent done = ended(ready, TaskEventType.SUCCEEDED, null, 0);
        done.setCacheKey(key);
        return done;
    }

    /**
     * docs/caching.md: with nothing said, a task that declares outputs is served from the cache; one
     * without outputs, one that says cache: false, one that mounts a host directory are not; and a
     * task is keyed by every task it runs after, so one after a task without a key is neither served
     * nor indexed.
     */
    @Test
    void byDefaultATaskWithOutputsIsServedAndATaskAfterOneWithoutAKeyIsNeitherServedNorIndexed() {
        TaskDefinition index = task("index");
        index.setOutputs(List.of("ref.idx"));
        TaskDefinition notes = task("notes");
        TaskDefinition align = task("align", "index", "notes");
        align.setOutputs(List.of("out.bam"));
        TaskDefinition off = task("off", "index");
        off.setOutputs(List.of("x"));
        off.setCache(false);
        planner.accept(job("j", index, notes, align, off), 1L);
        Map<String, TaskReady> ready = new HashMap<>();
        plan.drainReady().forEach(r -> ready.put(r.getTask().getName(), r));
        assertEquals("owner/alice", ready.get("index").getTask().getCacheScope(), "it declares outputs: the default serves it");
        assertNull(ready.get("notes").getTask().getCacheScope(), "no outputs: nothing a hit could restore but a success");
        TaskDefinition mounting = task("mounting");
        mounting.setOutputs(List.of("y"));
        mounting.setMounts(List.of(Mount.newBuilder().setSource("/data/panel").setPath("/panel").setReadOnly(true).build()));
        assertFalse(TaskKeys.servable(mounting), "a host directory's content is in no key");
        mounting.setCache(true);
        assertTrue(TaskKeys.servable(mounting), "unless the task says it may be");

        planner.onEvent(keyed(ready.get("index"), "v2:index"), 2L);
        planner.onEvent(ended(ready.get("notes"), TaskEventType.SUCCEEDED, null, 0), 3L); // its node keyed nothing
        plan.drainReady().forEach(r -> ready.put(r.getTask().getName(), r));
        assertEquals(Map.of(), ready.get("align").getTask().getAfterKeys(), "notes has no key: align's would not cover what it left");
        assertNull(ready.get("align").getTask().getCacheScope());
        assertEquals(Map.of("index", "v2:index"), ready.get("off").getTask().getAfterKeys());
        assertNull(ready.get("off").getTask().getCacheScope(), "cache: false");
        planner.onEvent(keyed(ready.get("align"), "v2:align"), 4L);
        planner.onEvent(keyed(ready.get("off"), "v2:off"), 5L);
        assertEquals(List.of("v2:index"), plan.cacheEntries.stream().map(CacheEntry::getCacheKey).toList(),
                "neither the unchained nor the opted-out success is indexed");
    }

    /** docs/caching.md: an admin may widen whose results a job's units are served (FLASH_CACHE_SCOPE). */
    @Test
    void aWidenedScopeLooksUpAndRecordsUnderTheJobsQueue() {
        MemoryPlan shared = new MemoryPlan();
        JobPlanner widened = new JobPlanner(shared, shared, new RetryPolicy(2, new io.flash.common.resources.MemoryPolicy(2.0, 1L << 30), 2, 3600),
                ShardSizing.defaults(), ResultCache.Sharing.QUEUE);
        TaskDefinition index = task("index");
        index.setOutputs(List.of("ref.idx"));
        JobAccepted job = job("j", index);
        job.setQueue("genomes");
        widened.accept(job, 1L);
        TaskReady ready = shared.drainReady().get(0);
        assertEquals("queue/genomes", ready.getTask().getCacheScope());
        widened.onEvent(keyed(ready, "v2:index"), 2L);
        assertEquals("queue/genomes", shared.cacheEntries.get(0).getScope());
    }

    /** A hit restores declared outputs only: a unit that wrote more is not indexed, says why, and still keys what follows. */
    @Test
    void aUnitThatWroteFilesItDoesNotDeclareIsNotIndexedAndSaysWhich() {
        TaskDefinition reference = task("reference");
        reference.setOutputs(List.of("ref.fa"));
        TaskDefinition align = task("align", "reference");
        align.setOutputs(List.of("out.bam"));
        planner.accept(job("j", reference, align), 1L);
        TaskEvent wroteMore = keyed(plan.drainReady().get(0), "v2:ref");
        wroteMore.setUndeclaredWrites(List.of("ref.fa.amb", "ref.fa.ann"));
        planner.onEvent(wroteMore, 2L);
        assertEquals(List.of(), plan.cacheEntries);
        TaskReady aligning = plan.drainReady().get(0);
        assertEquals(Map.of("reference", "v2:ref"), aligning.getTask().getAfterKeys(), "its key still names what it made");
        assertEquals("owner/alice", aligning.getTask().getCacheScope());
        planner.onEvent(keyed(aligning, "v2:align"), 3L);
        assertEquals(List.of("v2:align"), plan.cacheEntries.stream().map(CacheEntry::getCacheKey).toList());
        String why = unitOf(plan.onlyResult(), "reference").getReason();
        assertTrue(why.startsWith("not cached: it wrote ref.fa.amb, ref.fa.ann in the workspace without declaring them"), why);
        assertNull(unitOf(plan.onlyResult(), "align").getReason());
        assertTrue(Entries.notIndexed(List.of("a.txt", CacheKeys.NOT_LOOKED_THROUGH)).contains("could not be checked"),
                "a workspace too large to look through is said so, not listed");
    }

    @Test
    void aScatterIsNamedToWhatReadsItsOutputsByTheKeysOfAllItsShards() {
        TaskDefinition shards = scattered("s", 3, 1);
        shards.setOutputs(List.of("parts"));
        TaskDefinition gather = task("gather", "s");
        gather.setInputs(List.of("parts"));
        planner.accept(job("j", shards, gather), 1L);
        List<TaskReady> ready = plan.drainReady();
        for (int i = ready.size() - 1; i >= 0; i--) { // in any order: the key is of the shards in shard order
            TaskEvent done = ended(ready.get(i), TaskEventType.SUCCEEDED, null, 0);
            done.setCacheKey("v1:shard" + ready.get(i).getShardIndex());
            planner.onEvent(done, 2L + i);
        }
        assertEquals(Map.of("parts", CacheKeys.ofUnits(List.of("v1:shard0", "v1:shard1", "v1:shard2"))),
                plan.drainReady().get(0).getTask().getUpstreamKeys());
    }

    @Test
    void theStatusSaysTheQueuePriorityAndWhenTheJobStartedAndFinished() {
        JobAccepted spec = job("j", task("a"));
        spec.setQueue("long");
        spec.setPriority(7);
        planner.accept(spec, 1L);
        TaskReady a = plan.drainReady().get(0);
        JobStatus accepted = plan.statuses.get(plan.statuses.size() - 1);
        assertEquals("long", accepted.getQueue());
        assertEquals(7, accepted.getPriority());
        assertNull(accepted.getStartedAt());
        TaskEvent started = event(a, TaskEventType.STARTED);
        started.setAt(40L);
        planner.onEvent(started, 41L);
        JobStatus running = plan.jobSteps.get(plan.jobSteps.size() - 1);
        assertEquals(40L, running.getStartedAt(), "the attempt's own start, not when the planner heard");
        assertNull(running.getFinishedAt());
        TaskEvent succeeded = ended(a, TaskEventType.SUCCEEDED, null, 0);
        succeeded.setAt(85L);
        planner.onEvent(succeeded, 90L);
        JobStatus done = plan.statuses.get(plan.statuses.size() - 1);
        assertEquals(JobState.SUCCEEDED, done.getState());
        assertEquals(40L, done.getStartedAt());
        assertEquals(85L, done.getFinishedAt(), "when its last task ended");
    }

    @Test
    void theJobsStatusIsPublishedOnlyWhenTheJobChangesNotForEveryUnitsStep() {
        planner.accept(job("j", scattered("s", 3, 1)), 1L);
        List<TaskReady> shards = plan.drainReady();
        int before = plan.statuses.size(), unitsBefore = plan.unitStatuses, stepsBefore = plan.unitSteps;
        for (TaskReady shard : shards) {
            planner.onEvent(event(shard, TaskEventType.DISPATCHED), 2L);
            planner.onEvent(event(shard, TaskEventType.PLACED), 3L);
        }
        assertEquals(before, plan.statuses.size(), "dispatched and placed units change nothing the job's status says");
        assertEquals(unitsBefore, plan.unitStatuses, "dispatched and placed are passing steps, not published at once");
        assertEquals(stepsBefore + 6, plan.unitSteps, "each unit's steps are handed on, published if they last");

        for (int i = 0; i < 2; i++) {
            TaskEvent held = event(shards.get(i), TaskEventType.HELD);
            held.setReason("ecs shard 0: " + (50 - i) + " nodes: " + (50 - i) + " lack free cpu");
            planner.onEvent(held, 4L);
        }
        assertEquals(before + 1, plan.statuses.size(), "two shards waiting for the same reason in words: one message");
        assertEquals("task s waits: ecs shard 0: 50 nodes: 50 lack free cpu", plan.statuses.get(before).getMessage());

        int stepsHeld = plan.unitSteps;
        for (TaskReady shard : shards) planner.onEvent(event(shard, TaskEventType.STARTED), 5L);
        assertEquals(before + 1, plan.statuses.size(), "a start is a passing step of the job too");
        assertEquals(1, plan.jobSteps.size(), "only the job's first start is news");
        assertEquals(stepsHeld + 3, plan.unitSteps, "running is a passing step: a unit that ends within a tick is published once");
        int unitsRunning = plan.unitStatuses, stepsRunning = plan.unitSteps;
        TaskEvent again = event(shards.get(0), TaskEventType.STARTED);
        again.setAt(9_000L);
        planner.onEvent(again, 9L);
        assertEquals(unitsRunning, plan.unitStatuses, "a start told again (a restarted shard may) changes nothing");
        assertEquals(stepsRunning, plan.unitSteps);
        assertEquals(2_000L, plan.unit(shards.get(0).getTaskId()).getStartedAt(), "the first start stands, for the charge too");
        assertEquals(2_000L, plan.jobSteps.get(0).getStartedAt());

        int statusesBeforeEnds = plan.statuses.size();
        planner.onEvent(ended(shards.get(0), TaskEventType.SUCCEEDED, null, 0), 6L);
        assertEquals(statusesBeforeEnds, plan.statuses.size(), "a success that leaves the job running only moves its counts");
        assertEquals(1, plan.jobSteps.get(plan.jobSteps.size() - 1).getTasksSucceeded(), "handed on as a step, published once a tick");
        TaskEvent failed = ended(shards.get(1), TaskEventType.FAILED, FailureClass.USER, 2);
        planner.onEvent(failed, 7L);
        assertEquals(statusesBeforeEnds + 1, plan.statuses.size(), "a failure says why: news at once");
        assertEquals(1, plan.statuses.get(plan.statuses.size() - 1).getTasksSucceeded());
    }

    @Test
    void userFailureFailsTheJobWithExitCodeAndSkipsWhatIsLeft() {
        planner.accept(job("j", task("a"), task("b", "a")), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 3), 2L);
        JobResult result = plan.onlyResult();
        assertEquals(JobState.FAILED, result.getState());
        assertEquals(3, result.getExitCode());
        assertEquals("task a failed with exit code 3; 1 of 1 attempts used", result.getReason());
        assertEquals(TaskState.SKIPPED, result.getTasks().get(1).getState());
    }

    @Test
    void exitCodeRulesDecideRetries() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(3);
        t.setRetryOnExitCodes(List.of(75, 2));
        t.setFailOnExitCodes(List.of(2));
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 75), 2L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals("j.a.2", second.getAttemptId(), "75 is retryable");
        planner.onEvent(ended(second, TaskEventType.FAILED, FailureClass.USER, 2), 3L);
        assertTrue(plan.drainReady().isEmpty());
        assertEquals("task a failed with exit code 2; exit code 2 fails at once (failOnExitCodes)", plan.onlyResult().getReason());
    }

    @Test
    void anExitCodeOutsideRetryOnExitCodesIsNotRetried() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(3);
        t.setRetryOnExitCodes(List.of(75));
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 1), 2L);
        assertTrue(plan.onlyResult().getReason().contains("exit code 1 is not retried (retryOnExitCodes: [75])"));
    }

    @Test
    void oomKilledIsRetriedWithMoreMemory() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(3);
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 2L);
        TaskReady retry = plan.drainReady().get(0);
        assertEquals(128 * MIB, retry.getTask().getResources().getMemoryBytes(), "64Mi doubled");
        assertTrue(plan.units.get("j.a").getReason().endsWith("with 128Mi memory"));
        planner.onEvent(ended(retry, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 3L);
        assertEquals(256 * MIB, plan.drainReady().get(0).getTask().getResources().getMemoryBytes(), "and again");
    }

    /** Growth stops at the ceiling, and an OOM there fails at once instead of spending the budget at the same size. */
    @Test
    void anOomAtTheMemoryCeilingFailsSayingSo() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(5);
        t.getResources().setMemoryBytes(400 * MIB);
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 2L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals(800 * MIB, second.getTask().getResources().getMemoryBytes());
        planner.onEvent(ended(second, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 3L);
        TaskReady third = plan.drainReady().get(0);
        assertEquals(1024 * MIB, third.getTask().getResources().getMemoryBytes(), "grown to the ceiling, not past it");
        planner.onEvent(ended(third, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 4L);
        assertTrue(plan.drainReady().isEmpty(), "no fourth attempt at the same 1Gi");
        JobResult result = plan.onlyResult();
        assertEquals(JobState.FAILED, result.getState());
        assertTrue(result.getReason().contains("it had 1024Mi, the ceiling (flash.memory.max-task: 1024Mi)"), result.getReason());
    }

    /** Growth asks for no more than the largest node any framework has, and an OOM there fails saying so (not held for ever). */
    @Test
    void anOomAtTheLargestNodesMemoryFailsSayingSo() {
        plan.largestNodeMemory = 300 * MIB;
        TaskDefinition t = task("a");
        t.setMaxAttempts(5);
        t.getResources().setMemoryBytes(200 * MIB);
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 2L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals(300 * MIB, second.getTask().getResources().getMemoryBytes(), "the largest node's memory, not 400Mi");
        planner.onEvent(ended(second, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 3L);
        assertTrue(plan.drainReady().isEmpty(), "no attempt asks for more than any node has");
        JobResult result = plan.onlyResult();
        assertEquals(JobState.FAILED, result.getState());
        assertTrue(result.getReason().contains("it had 300Mi, all the memory of the largest node any framework has (300Mi)"),
                result.getReason());
    }

    @Test
    void backoffDelaysTheRetry() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(3);
        t.setBackoffSeconds(10L);
        planner.accept(job("j", t), 1_000L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 1), 5_000L);
        assertTrue(plan.drainReady().isEmpty(), "not yet");
        DelayedAttempt delayed = plan.delayed.get(0);
        assertEquals(15_000L, delayed.getDueAt());
        planner.due(delayed, 15_000L);
        assertEquals("j.a.2", plan.drainReady().get(0).getAttemptId());
    }

    @Test
    void lostNodesDoNotSpendTheUsersBudget() {
        planner.accept(job("j", task("a")), 1L); // maxAttempts 1
        TaskReady attempt = plan.drainReady().get(0);
        for (int lost = 1; lost <= 2; lost++) {
            planner.onEvent(ended(attempt, TaskEventType.LOST, FailureClass.NODE_LOST, null), 2L);
            attempt = plan.drainReady().get(0);
        }
        assertTrue(plan.results.isEmpty());
        planner.onEvent(ended(attempt, TaskEventType.SUCCEEDED, null, 0), 3L);
        TaskSummary a = plan.onlyResult().getTasks().get(0);
        assertEquals(JobState.SUCCEEDED, plan.onlyResult().getState());
        assertEquals(0, a.getUserFailures());
        assertEquals(2, a.getInfraFailures());
        assertEquals(3, a.getAttempts());
    }

    @Test
    void eachAttemptIsChargedItsPriceForItsRunTimeToTheUserOrThePlatform() {
        long minute = 60_000;
        planner.accept(job("j", task("a")), 1L);
        TaskReady first = plan.drainReady().get(0);
        run(first, 0.60, 0, 0);
        planner.onEvent(at(ended(first, TaskEventType.LOST, FailureClass.NODE_LOST, null), 10 * minute), 10 * minute);
        TaskReady second = plan.drainReady().get(0);
        TaskEvent placed = at(event(second, TaskEventType.PLACED), 11 * minute);
        planner.onEvent(placed, 11 * minute); // placed unpriced, then lost before it started: costs nothing
        planner.onEvent(at(ended(second, TaskEventType.LOST, FailureClass.NODE_LOST, null), 12 * minute), 12 * minute);
        TaskReady third = plan.drainReady().get(0);
        run(third, 0.30, 19 * minute, 20 * minute);
        planner.onEvent(at(ended(third, TaskEventType.SUCCEEDED, null, 0), 40 * minute), 40 * minute);
        planner.onEvent(at(ended(third, TaskEventType.SUCCEEDED, null, 0), 41 * minute), 41 * minute); // twice delivered

        JobResult result = plan.onlyResult();
        assertEquals(0.60 * 10 / 60, result.getPlatformCost(), 1e-12, "the lost node's ten minutes are the platform's");
        assertEquals(0.30 * 20 / 60, result.getUserCost(), 1e-12, "the successful twenty minutes are the user's, once");
        TaskSummary a = result.getTasks().get(0);
        assertEquals(result.getUserCost(), a.getUserCost(), 1e-12);
        assertEquals(result.getPlatformCost(), a.getPlatformCost(), 1e-12);
    }

    @Test
    void aFrameworkThatLearnsTheNodeOnlyAtTheStartPricesTheAttemptThen() {
        long minute = 60_000;
        planner.accept(job("j", task("a")), 1L);
        TaskReady attempt = plan.drainReady().get(0);
        planner.onEvent(at(event(attempt, TaskEventType.PLACED), minute), minute); // a batch cluster: no node yet, no price
        TaskEvent started = at(event(attempt, TaskEventType.STARTED), 2 * minute);
        started.setCostPerHour(0.12); // a pod's node's price times its share, once the pod runs
        planner.onEvent(started, 2 * minute);
        planner.onEvent(at(ended(attempt, TaskEventType.SUCCEEDED, null, 0), 32 * minute), 32 * minute);
        assertEquals(0.12 * 30 / 60, plan.onlyResult().getUserCost(), 1e-12);
    }

    private void run(TaskReady attempt, double costPerHour, long placedAt, long startedAt) {
        TaskEvent placed = at(event(attempt, TaskEventType.PLACED), placedAt);
        placed.setCostPerHour(costPerHour);
        planner.onEvent(placed, placedAt);
        planner.onEvent(at(event(attempt, TaskEventType.STARTED), startedAt), startedAt);
    }

    private static TaskEvent at(TaskEvent event, long at) {
        event.setAt(at);
        return event;
    }

    @Test
    void spotReclaimsAreFreeAndAfterTheLimitTheTaskRunsOnDemand() {
        planner.accept(job("j", task("a")), 1L); // maxAttempts 1; the planner allows 2 spot reclaims
        TaskReady attempt = plan.drainReady().get(0);
        assertTrue(attempt.getTask().getSpotAllowed());
        for (int reclaim = 1; reclaim <= 2; reclaim++) {
            planner.onEvent(ended(attempt, TaskEventType.FAILED, FailureClass.SPOT_RECLAIMED, 137), 2L);
            attempt = plan.drainReady().get(0);
            if (reclaim == 1) assertTrue(attempt.getTask().getSpotAllowed(), "after one reclaim spot is still allowed");
        }
        assertFalse(attempt.getTask().getSpotAllowed(), "after two reclaims only on-demand capacity");
        planner.onEvent(ended(attempt, TaskEventType.SUCCEEDED, null, 0), 3L);
        TaskSummary a = plan.onlyResult().getTasks().get(0);
        assertEquals(JobState.SUCCEEDED, plan.onlyResult().getState());
        assertEquals(List.of(0, 0, 2, 3), List.of(a.getUserFailures(), a.getInfraFailures(), a.getSpotLosses(), a.getAttempts()),
                "neither the user's budget nor the infrastructure's was spent");
    }

    @Test
    void aTaskThatForbidsSpotNeverGetsAnAttemptThatMayUseIt() {
        TaskDefinition never = task("a");
        never.setSpotAllowed(false);
        planner.accept(job("j", never), 1L);
        assertFalse(plan.drainReady().get(0).getTask().getSpotAllowed());
    }

    @Test
    void shardsSizedToATargetDurationLandNearItOnTheSecondRun() {
        long target = 40 * 60, items = 100_000;
        ResourceEstimator estimator = ResourceEstimator.defaults();
        Random noise = new Random(7);
        List<Double> durations = new ArrayList<>();
        for (int run = 1; run <= 2; run++) {
            TaskDefinition compare = task("compare");
            compare.setScatter(Scatter.newBuilder().setFrom(0L).setTo(items).setShardSize(1).setShards((int) items)
                    .setTargetShardSeconds(target).build()); // as ingest leaves it: provisional, the smallest shards allowed
            planner.accept(job("run-" + run, compare), 1L);
            List<TaskReady> shards = plan.drainReady();
            assertEquals(run == 1 ? 20 : shards.size(), shards.size(), "a first run is split into 20 shards to learn from");
            String why = plan.tasks.get("run-" + run + "/compare").getReason();
            assertTrue(why.startsWith(run == 1 ? "20 shards of 5000: a first run" : shards.size() + " shards of "), why);
            durations.clear();
            for (TaskReady shard : shards) {
                long from = Long.parseLong(shard.getTask().getEnv().get("FLASH_SHARD_FROM"));
                long to = Long.parseLong(shard.getTask().getEnv().get("FLASH_SHARD_TO"));
                long millis = (long) ((to - from) * 0.5 * (0.9 + 0.2 * noise.nextDouble()) * 1000); // half a second an item, ±10 %
                durations.add(millis / 1000.0);
                planner.onEvent(at(event(shard, TaskEventType.STARTED), 10_000), 10_000);
                TaskEvent done = at(ended(shard, TaskEventType.SUCCEEDED, null, 0), 10_000 + millis);
                done.setPeakMemoryBytes(64L << 20);
                planner.onEvent(done, 10_000 + millis);
            }
            for (ResourceObservation o : plan.observations) {
                plan.estimates.put(o.getSignature(), estimator.update(plan.estimates.get(o.getSignature()), o));
            }
            plan.observations.clear();
        }
        assertTrue(durations.size() > 1, "the second run is sharded too: " + durations);
        for (double seconds : durations.subList(0, durations.size() - 1)) { // the last shard holds what is left over
            assertTrue(Math.abs(seconds - target) <= 0.25 * target, seconds + " s is not within 25 % of " + target + " s: " + durations);
        }
    }

    @Test
    void aFrameworkLossReportedAfterThePlacementIsIgnoredSoTheAttemptNeverRunsTwice() {
        planner.accept(job("j", task("a")), 1L);
        TaskReady attempt = plan.drainReady().get(0);
        TaskEvent placed = event(attempt, TaskEventType.PLACED);
        placed.setNodeId("n1");
        planner.onEvent(placed, 2L);
        TaskEvent movedByTheDispatcher = ended(attempt, TaskEventType.LOST, FailureClass.FRAMEWORK_LOST, null);
        movedByTheDispatcher.setNodeId(null);
        planner.onEvent(movedByTheDispatcher, 3L);
        assertTrue(plan.drainReady().isEmpty(), "no second attempt beside the placed one");
        // Its shard reads the fence and stops it: that end, from its node, is retried.
        TaskEvent stopped = ended(attempt, TaskEventType.LOST, FailureClass.FRAMEWORK_LOST, null);
        stopped.setNodeId("n1");
        planner.onEvent(stopped, 4L);
        TaskReady retry = plan.drainReady().get(0);
        assertEquals("j.a.2", retry.getAttemptId());
        planner.onEvent(ended(retry, TaskEventType.SUCCEEDED, null, 0), 5L);
        assertEquals(JobState.SUCCEEDED, plan.onlyResult().getState());
        assertEquals(0, plan.onlyResult().getTasks().get(0).getUserFailures());
    }

    @Test
    void aFrameworkLossBeforeThePlacementRetriesWithoutTheUsersBudget() {
        planner.accept(job("j", task("a")), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.LOST, FailureClass.FRAMEWORK_LOST, null), 2L);
        TaskReady retry = plan.drainReady().get(0);
        assertEquals("j.a.2", retry.getAttemptId());
        planner.onEvent(ended(retry, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertEquals(0, plan.onlyResult().getTasks().get(0).getUserFailures());
    }

    @Test
    void infrastructureBudgetRunsOut() {
        planner.accept(job("j", task("a")), 1L);
        for (int i = 0; i < 3; i++) {
            planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.LOST, FailureClass.NODE_LOST, null), 2L);
        }
        assertEquals(JobState.FAILED, plan.onlyResult().getState());
        assertTrue(plan.onlyResult().getReason().contains("infrastructure retries exhausted"), plan.onlyResult().getReason());
    }

    @Test
    void repeatedFailuresOnOneFrameworkExcludeIt() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(3);
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 1), 2L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals(List.of(), second.getExcludedFrameworks());
        planner.onEvent(ended(second, TaskEventType.FAILED, FailureClass.USER, 1), 3L);
        assertEquals(List.of("ecs"), plan.drainReady().get(0).getExcludedFrameworks());
    }

    @Test
    void eventsOfOldAttemptsChangeNothing() {
        TaskDefinition t = task("a");
        t.setMaxAttempts(2);
        planner.accept(job("j", t), 1L);
        TaskReady first = plan.drainReady().get(0);
        planner.onEvent(ended(first, TaskEventType.FAILED, FailureClass.USER, 1), 2L);
        plan.drainReady();
        int statuses = plan.statuses.size();
        planner.onEvent(ended(first, TaskEventType.SUCCEEDED, null, 0), 3L);
        planner.onEvent(ended(first, TaskEventType.FAILED, FailureClass.USER, 1), 3L);
        assertEquals(statuses, plan.statuses.size(), "late events of attempt 1 change nothing");
        assertEquals(TaskState.READY, plan.units.get("j.a").getState());
    }

    @Test
    void scatterRunsEveryShardAndTheGatherWaitsForAll() {
        planner.accept(job("j", scattered("compare", 10, 4), task("gather", "compare")), 1L);
        List<TaskReady> shards = plan.drainReady();
        assertEquals(List.of("j.compare.s0", "j.compare.s1", "j.compare.s2"), ids(shards));
        Map<String, String> env = shards.get(2).getTask().getEnv();
        assertEquals("8", env.get("FLASH_SHARD_FROM"));
        assertEquals("10", env.get("FLASH_SHARD_TO"));
        assertEquals("3", env.get("FLASH_SHARD_COUNT"));
        assertNull(shards.get(0).getTask().getScatter(), "a shard carries only its own share");

        planner.onEvent(ended(shards.get(0), TaskEventType.SUCCEEDED, null, 0), 2L);
        planner.onEvent(ended(shards.get(2), TaskEventType.SUCCEEDED, null, 0), 2L);
        assertTrue(plan.drainReady().isEmpty(), "gather waits for shard 1");
        planner.onEvent(ended(shards.get(1), TaskEventType.SUCCEEDED, null, 0), 3L);
        TaskReady gather = plan.drainReady().get(0);
        assertEquals("j.gather", gather.getTaskId());
        planner.onEvent(ended(gather, TaskEventType.SUCCEEDED, null, 0), 4L);

        TaskSummary compare = plan.onlyResult().getTasks().get(0);
        assertEquals(3, compare.getShards());
        assertEquals(3, compare.getShardsSucceeded());
    }

    @Test
    void listScatterHandsEachShardItsItems() {
        TaskDefinition t = task("t");
        t.setScatter(Scatter.newBuilder().setItems(List.of("a", "b", "c", "d", "e")).setShardSize(2).setShards(3).build());
        planner.accept(job("j", t), 1L);
        List<TaskReady> shards = plan.drainReady();
        assertEquals("a\nb", shards.get(0).getTask().getEnv().get("FLASH_SHARD_ITEMS"));
        assertEquals("e", shards.get(2).getTask().getEnv().get("FLASH_SHARD_ITEMS"));
    }

    @Test
    void aFailedShardFailsTheTaskWithItsReason() {
        planner.accept(job("j", scattered("t", 2, 1)), 1L);
        List<TaskReady> shards = plan.drainReady();
        planner.onEvent(ended(shards.get(1), TaskEventType.FAILED, FailureClass.USER, 4), 2L);
        assertTrue(plan.results.isEmpty(), "shard 0 still runs");
        planner.onEvent(ended(shards.get(0), TaskEventType.SUCCEEDED, null, 0), 3L);
        JobResult result = plan.onlyResult();
        assertEquals(JobState.FAILED, result.getState());
        assertEquals(4, result.getExitCode());
        assertEquals("task t shard t[1] failed with exit code 4; 1 of 1 attempts used", result.getReason());
    }

    @Test
    void cancelStopsPendingTasksAndAsksRunningAttemptsToStop() {
        planner.accept(job("j", task("a"), task("b", "a")), 1L);
        TaskReady a = plan.drainReady().get(0);
        planner.onEvent(event(a, TaskEventType.DISPATCHED), 2L);
        TaskEvent placed = event(a, TaskEventType.PLACED);
        placed.setShard(2);
        planner.onEvent(placed, 2L);
        planner.cancel("j", "user asked", 3L);
        TaskReady cancel = plan.drainReady().get(0);
        assertTrue(cancel.getCancel());
        assertEquals(a.getAttemptId(), cancel.getAttemptId());
        assertEquals("ecs", cancel.getCancelFramework());
        assertEquals(2, cancel.getCancelShard());
        assertTrue(plan.results.isEmpty(), "waits for the running attempt to stop");

        planner.onEvent(ended(a, TaskEventType.CANCELLED, FailureClass.CANCELLED, 137), 4L);
        JobResult result = plan.onlyResult();
        assertEquals(JobState.CANCELLED, result.getState());
        assertEquals("cancelled: user asked", result.getReason());
        assertEquals(List.of(TaskState.CANCELLED, TaskState.CANCELLED), result.getTasks().stream().map(TaskSummary::getState).toList());
    }

    @Test
    void aDispatchedStepFromAnOlderDispatcherIsNotStoredUnlessItEndsAStoredReason() {
        planner.accept(job("j", task("a")), 1L);
        TaskReady a = plan.drainReady().get(0);
        int steps = plan.unitSteps;
        TaskEvent dispatched = event(a, TaskEventType.DISPATCHED);
        dispatched.setShard(1);
        planner.onEvent(dispatched, 2L);
        assertEquals(steps + 1, plan.unitSteps, "published if it lasts, as before");
        assertEquals(TaskState.READY, plan.units.get(a.getTaskId()).getState(), "a restart need not know it");
        planner.cancel("j", "user asked", 3L);
        TaskReady cancel = plan.drainReady().stream().filter(r -> r.getAttemptId().equals(a.getAttemptId())).findFirst().orElseThrow();
        assertNull(cancel.getCancelFramework(), "the dispatcher routes it by its own in-flight record");

        TaskReady c = secondAttempt("k", "c", 4L);
        assertTrue(plan.units.get(c.getTaskId()).getReason().contains("retrying"), "a retry's reason is stored");
        planner.onEvent(event(c, TaskEventType.DISPATCHED), 6L);
        assertEquals(TaskState.DISPATCHED, plan.units.get(c.getTaskId()).getState(), "stored: it ends the stored reason");
        assertNull(plan.units.get(c.getTaskId()).getReason());
    }

    @Test
    void whyAUnitWaitsIsPublishedAtOnceNotStoredAndAFrameworksHoldSaysWhere() {
        planner.accept(job("j", task("a")), 1L);
        TaskReady a = plan.drainReady().get(0);
        TaskSummary accepted = plan.units.get(a.getTaskId());
        TaskEvent heldByDispatcher = event(a, TaskEventType.HELD);
        heldByDispatcher.setFrameworkId(null);
        heldByDispatcher.setReason("no framework has 64 cpu");
        planner.onEvent(heldByDispatcher, 2L);
        assertEquals(Arrays.asList(TaskState.READY, "no framework has 64 cpu"),
                Arrays.asList(plan.lastUnitStatus.getState(), plan.lastUnitStatus.getReason()));
        assertEquals(accepted, plan.units.get(a.getTaskId()), "a restart need not know why it waited");

        TaskEvent heldByFramework = event(a, TaskEventType.HELD);
        heldByFramework.setShard(2);
        heldByFramework.setReason("no node has 64 cpu");
        planner.onEvent(heldByFramework, 3L);
        TaskSummary waiting = plan.lastUnitStatus;
        assertEquals(List.of(TaskState.DISPATCHED, "ecs", 2, "no node has 64 cpu"),
                Arrays.asList(waiting.getState(), waiting.getFrameworkId(), waiting.getShard(), waiting.getReason()));
        assertEquals(accepted, plan.units.get(a.getTaskId()));
        planner.cancel("j", "user asked", 4L);
        assertNull(plan.drainReady().get(0).getCancelFramework(), "routed by the dispatcher's in-flight record, which holds it");
    }

    @Test
    void aPlacementWithNoDispatchedEventBeforeItEndsTheStoredReasonAndSaysWhere() {
        TaskReady a = secondAttempt("j", "a", 1L);
        assertTrue(plan.units.get(a.getTaskId()).getReason().contains("retrying"));

        TaskEvent placed = event(a, TaskEventType.PLACED);
        placed.setShard(2);
        placed.setNodeId("n1");
        planner.onEvent(placed, 3L);
        TaskSummary unit = plan.units.get(a.getTaskId());
        assertEquals(Arrays.asList(TaskState.PLACED, "ecs", 2, "n1", null),
                Arrays.asList(unit.getState(), unit.getFrameworkId(), unit.getShard(), unit.getNodeId(), unit.getReason()),
                "stored, with the retry's reason gone");
        planner.cancel("j", "user asked", 4L);
        TaskReady cancel = plan.drainReady().get(0);
        assertEquals(Arrays.asList("ecs", 2), Arrays.asList(cancel.getCancelFramework(), cancel.getCancelShard()));
    }

    /** A one-task job whose first attempt failed (exit 1) at {@code at + 1}: its retry, ready. */
    private TaskReady secondAttempt(String jobId, String taskName, long at) {
        TaskDefinition t = task(taskName);
        t.setMaxAttempts(2);
        planner.accept(job(jobId, t), at);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 1), at + 1);
        return plan.drainReady().get(0);
    }

    @Test
    void continueModeRunsIndependentBranches() {
        JobAccepted spec = job("j", task("a"), task("b", "a"), task("c"));
        spec.setFailureMode(FailureMode.CONTINUE);
        planner.accept(spec, 1L);
        List<TaskReady> ready = plan.drainReady();
        planner.onEvent(ended(ready.get(0), TaskEventType.FAILED, FailureClass.USER, 2), 2L);
        assertTrue(plan.results.isEmpty(), "c is still running");
        planner.onEvent(ended(ready.get(1), TaskEventType.SUCCEEDED, null, 0), 3L);
        assertEquals(List.of(TaskState.FAILED, TaskState.SKIPPED, TaskState.SUCCEEDED),
                plan.onlyResult().getTasks().stream().map(TaskSummary::getState).toList());
    }

    @Test
    void aTaskThatContinuesOnFailureReleasesItsDependantsAndDoesNotFailTheJob() {
        TaskDefinition first = task("a");
        first.setContinueOnFailure(true);
        JobAccepted spec = job("j", first, task("b", "a"));
        spec.setLabels(Map.of("ga4gh.tes/task", "{}"));
        planner.accept(spec, 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.USER, 3), 2L);
        List<TaskReady> ready = plan.drainReady();
        assertEquals(List.of("j.b"), ids(ready), "b runs although a failed");
        planner.onEvent(ended(ready.get(0), TaskEventType.SUCCEEDED, null, 0), 3L);
        JobResult result = plan.onlyResult();
        assertEquals(JobState.SUCCEEDED, result.getState());
        assertEquals(List.of(TaskState.FAILED, TaskState.SUCCEEDED), result.getTasks().stream().map(TaskSummary::getState).toList());
        assertEquals(3, result.getTasks().get(0).getExitCode());
        JobStatus last = plan.statuses.get(plan.statuses.size() - 1);
        assertEquals("done; failures ignored (continueOnFailure): a", last.getMessage());
        assertEquals("{}", last.getLabels().get("ga4gh.tes/task"), "the status carries the submission's labels");
        assertEquals(spec.getAcceptedAt(), last.getAcceptedAt());
    }

    @Test
    void theSameJobTwiceRunsOnce() {
        assertTrue(planner.accept(job("j", task("a")), 1L));
        assertFalse(planner.accept(job("j", task("a")), 2L));
        assertEquals(1, plan.drainReady().size());
        JobStatus last = plan.statuses.get(plan.statuses.size() - 1);
        assertEquals("j", last.getJobId());
        assertTrue(last.getMessage().contains("was seen before"), last.getMessage());
    }

    @Test
    void aConcludedJobsPartsAreForgottenAndItsHeaderAnswersForIt() {
        planner.accept(job("j", task("a"), scattered("b", 2, 1, "a")), 1L);
        planner.accept(job("k", task("a")), 1L);
        TaskReady first = plan.drainReady().get(0);
        planner.onEvent(ended(first, TaskEventType.SUCCEEDED, null, 0), 2L);
        List<TaskReady> shards = plan.drainReady();
        assertNotNull(plan.units.get("j.a"), "kept while the job runs");
        shards.forEach(shard -> planner.onEvent(ended(shard, TaskEventType.SUCCEEDED, null, 0), 3L));

        assertEquals(JobState.SUCCEEDED, plan.onlyResult().getState());
        assertEquals(List.of("k.a"), List.copyOf(plan.units.keySet()), "only the running job's unit is left");
        assertEquals(Set.of("k/a"), plan.specs.keySet());
        assertEquals(Set.of("k/a"), plan.tasks.keySet());
        assertEquals(JobState.SUCCEEDED, plan.job("j").getState());
        planner.cancel("j", "late", 4L);
        planner.onEvent(ended(shards.get(0), TaskEventType.FAILED, FailureClass.USER, 1), 5L);
        assertFalse(planner.accept(job("j", task("a")), 6L));
        assertEquals(1, plan.results.size());
        assertTrue(plan.drainReady().isEmpty());
        assertEquals(List.of("k.a"), List.copyOf(plan.units.keySet()));
    }

    @Test
    void anEndedShardIsKeptOnlyWhileItsKeyMayStillBeNeeded() {
        planner.accept(job("j", scattered("last", 2, 1), scattered("fed", 2, 1), task("after", "fed")), 1L);
        List<TaskReady> shards = plan.drainReady();
        shards.forEach(shard -> planner.onEvent(ended(shard, TaskEventType.SUCCEEDED, null, 0), 2L));
        assertNull(plan.units.get("j.last.s0"), "nothing follows its task: gone at its end");
        assertNotNull(plan.units.get("j.fed.s0"), "its task keys what follows it from its shards' keys");
        assertEquals(TaskState.SUCCEEDED, plan.tasks.get("j/last").getState(), "the task's counters still know it");
        planner.onEvent(ended(shards.get(0), TaskEventType.FAILED, FailureClass.USER, 1), 3L); // a late report of a dropped shard
        assertNull(plan.units.get("j.last.s0"));
        assertTrue(plan.results.isEmpty());
    }

    /** Property: on random DAGs with scatters, every unit runs exactly once, only after all its dependencies. */
    @Test
    void randomDagsRunEveryTaskOnceAfterItsDependencies() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(30);
            List<TaskDefinition> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                List<String> deps = new ArrayList<>();
                for (int j = 0; j < i; j++) if (random.nextInt(4) == 0) deps.add("t" + j);
                tasks.add(random.nextInt(5) == 0 ? scattered("t" + i, 3, 1, deps.toArray(String[]::new))
                        : task("t" + i, deps.toArray(String[]::new)));
            }
            String jobId = "j" + round;
            planner.accept(job(jobId, tasks.toArray(TaskDefinition[]::new)), 0L);
            List<TaskReady> running = new ArrayList<>(plan.drainReady());
            Map<String, Integer> shardsDone = new HashMap<>();
            Set<String> unitsDone = new HashSet<>();
            while (!running.isEmpty()) {
                TaskReady next = running.remove(random.nextInt(running.size()));
                String name = next.getTask().getName();
                for (String dep : next.getTask().getDependsOn()) {
                    int shards = plan.tasks.get(jobId + "/" + dep).getShards();
                    assertEquals(shards, shardsDone.getOrDefault(dep, 0), name + " ran before all of " + dep);
                }
                assertTrue(unitsDone.add(next.getTaskId()), next.getTaskId() + " ran twice");
                shardsDone.merge(name, 1, Integer::sum);
                planner.onEvent(ended(next, TaskEventType.SUCCEEDED, null, 0), 1L);
                running.addAll(plan.drainReady());
            }
            JobResult result = plan.results.remove(plan.results.size() - 1);
            assertEquals(jobId, result.getJobId());
            assertEquals(JobState.SUCCEEDED, result.getState());
            for (TaskSummary t : result.getTasks()) assertEquals(t.getShards(), shardsDone.get(t.getName()), t.getName());
            assertEquals(tasks.size(), result.getTasks().size());
        }
    }

    @Test
    void tasksThatLeaveMemoryOutGetAnEstimateFromEarlierRuns() {
        TaskDefinition t = task("align");
        t.setMemoryRequested(false);
        t.setResources(new Capacity(0.5, 512 * MIB, 0L, 0)); // the default ingest filled in
        planner.accept(job("j1", t), 1L);
        TaskReady first = plan.drainReady().get(0);
        assertEquals(512 * MIB, first.getTask().getResources().getMemoryBytes());
        assertTrue(plan.units.get("j1.align").getResourceSource().startsWith("default memory 512Mi"));

        TaskEvent done = ended(first, TaskEventType.SUCCEEDED, null, 0);
        done.setPeakMemoryBytes(100 * MIB);
        planner.onEvent(done, 2L);
        ResourceObservation observed = plan.observations.get(0);
        assertEquals(100 * MIB, observed.getPeakMemoryBytes());
        assertEquals(ResourceEstimator.signature(t), observed.getSignature());
        plan.estimates.put(observed.getSignature(), ResourceEstimator.defaults().update(null, observed));

        planner.accept(job("j2", t), 3L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals(120 * MIB, second.getTask().getResources().getMemoryBytes(), "the peak plus 20 %");
        assertTrue(plan.units.get("j2.align").getResourceSource().startsWith("estimated from 1 earlier runs"),
                plan.units.get("j2.align").getResourceSource());
    }

    @Test
    void anAttemptKilledForMemoryOnTheEstimateIsThePlatformsMissAndRunsAgainWithTheDefault() {
        TaskDefinition t = task("gather");
        t.setMemoryRequested(false);
        t.setResources(new Capacity(0.5, 512 * MIB, 0L, 0)); // the default ingest filled in; maxAttempts 1
        plan.estimates.put(ResourceEstimator.signature(t), ResourceEstimate.newBuilder().setSignature(ResourceEstimator.signature(t))
                .setSamples(3).setMemoryBytes(40 * MIB).setUpdatedAt(0L).build()); // three smaller runs of the same command
        planner.accept(job("j", t), 1L);
        TaskReady first = plan.drainReady().get(0);
        assertEquals(40 * MIB, first.getTask().getResources().getMemoryBytes());
        TaskEvent placed = event(first, TaskEventType.PLACED);
        placed.setCostPerHour(3.6);
        planner.onEvent(at(placed, 1_000L), 1_000L);
        planner.onEvent(at(event(first, TaskEventType.STARTED), 1_000L), 1_000L);

        planner.onEvent(at(ended(first, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 11_000L), 11_000L);
        TaskReady second = plan.drainReady().get(0);
        assertEquals("j.gather.2", second.getAttemptId(), "retried at once, though the task allows one attempt");
        assertEquals(512 * MIB, second.getTask().getResources().getMemoryBytes(), "the memory it would have had without the estimate");
        TaskSummary unit = plan.units.get("j.gather");
        assertEquals(Arrays.asList(0, 0), Arrays.asList(unit.getUserFailures(), unit.getInfraFailures()));
        assertEquals(0.01, plan.jobs.get("j").getPlatformCost(), 1e-9, "its 10 s at 3.6 an hour are the platform's");
        assertEquals(0.0, plan.jobs.get("j").getUserCost(), 1e-9);

        planner.onEvent(ended(second, TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 12_000L);
        assertEquals(JobState.FAILED, plan.onlyResult().getState(), "at the default it is the task's own: 1 of 1 attempts used");
        assertTrue(plan.onlyResult().getReason().contains("1 of 1 attempts used"), plan.onlyResult().getReason());
    }

    @Test
    void anEstimateAtOrAboveTheDefaultIsNoMissOfThePlatform() {
        TaskDefinition t = task("call");
        t.setMemoryRequested(false);
        t.setResources(new Capacity(0.5, 512 * MIB, 0L, 0));
        plan.estimates.put(ResourceEstimator.signature(t), ResourceEstimate.newBuilder().setSignature(ResourceEstimator.signature(t))
                .setSamples(3).setMemoryBytes(600 * MIB).setUpdatedAt(0L).build());
        planner.accept(job("j", t), 1L);
        planner.onEvent(ended(plan.drainReady().get(0), TaskEventType.FAILED, FailureClass.OOM_KILLED, 137), 2L);
        assertEquals(JobState.FAILED, plan.onlyResult().getState());
    }

    @Test
    void anEstimateNeverAsksForMoreThanTheLargestNodeHas() {
        TaskDefinition t = task("call");
        t.setCpuRequested(false);
        t.setMemoryRequested(false);
        t.setResources(new Capacity(0.5, 512 * MIB, 0L, 0)); // the defaults ingest filled in
        plan.estimates.put(ResourceEstimator.signature(t), ResourceEstimate.newBuilder().setSignature(ResourceEstimator.signature(t))
                .setSamples(1).setCpu(9.7).setMemoryBytes(96L * 1024 * MIB).setUpdatedAt(0L).build());
        plan.largestNodeCpu = 2;
        plan.largestNodeMemory = 8L * 1024 * MIB;

        planner.accept(job("j", t), 1L);
        Capacity asked = plan.drainReady().get(0).getTask().getResources();
        assertEquals(2.0, asked.getCpu(), "a bad reading of an earlier run must not ask for more cpu than any node has");
        assertEquals(8L * 1024 * MIB, asked.getMemoryBytes());
        assertTrue(plan.units.get("j.call").getResourceSource().endsWith("(capped at the largest node's)"),
                plan.units.get("j.call").getResourceSource());
    }

    @Test
    void aRequestLargerThanEveryNodeIsTheUsersAndIsNotCapped() {
        TaskDefinition t = task("call");
        t.setResources(new Capacity(4.0, 512 * MIB, 0L, 0));
        plan.largestNodeCpu = 2;
        planner.accept(job("j", t), 1L);
        assertEquals(4.0, plan.drainReady().get(0).getTask().getResources().getCpu(),
                "what the user asked for stands: the dispatcher tells them no node fits");
    }
}
