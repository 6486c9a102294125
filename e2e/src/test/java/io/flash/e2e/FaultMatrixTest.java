package io.flash.e2e;

import io.flash.common.events.AttemptTimeline;
import io.flash.common.client.TopicTail;
import io.flash.common.ids.JobIds;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Faults injected into real processes mid-run, each judged the same way: the job ends SUCCEEDED,
 * every unit succeeded exactly once (in the task events and in the nodes' own reports), and no two
 * attempts of one unit ran at the same time. Two frameworks with simulated fleets of their own
 * (labelled {@code pool=faults}, so nothing else takes the work) share a 300-shard scatter.
 * The rest of the matrix: {@link NodeRestartTest} (executor kill -9 and back with the same node
 * ids) and {@link ContainmentTest} ({@code docker kill} of a task container).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultMatrixTest extends StackTest {

    private static final int PORT = 18150, SHARDS = 300;
    private static final List<String> FRAMEWORKS = List.of("faults-a", "faults-b");
    private final Map<String, TopicTail<AttemptEvent>> nodeEvents = new LinkedHashMap<>();
    private TopicTail<TaskEvent> events;

    @BeforeAll
    void startFrameworksAndFleets() throws Exception {
        for (int i = 0; i < FRAMEWORKS.size(); i++) {
            String fw = FRAMEWORKS.get(i);
            stack.startInstance(fw, "framework-ecs", PORT + 2 * i, Map.of("FLASH_FRAMEWORK_ID", fw));
            stack.startInstance(fw + "-fleet", "executor", PORT + 2 * i + 1, Map.of("FLASH_FRAMEWORK_ID", fw,
                    "FLASH_NODE_ID", fw + "-node", "FLASH_SIM_NODES", "8", "FLASH_SIM_RUN_TIME", "uniform:1s..3s",
                    "FLASH_NODE_CPU", "2", "FLASH_NODE_MEMORY", "4Gi", "FLASH_NODE_LABELS", "pool=faults"));
        }
        for (String fw : FRAMEWORKS) {
            stack.awaitReady(fw, Duration.ofSeconds(120));
            stack.awaitReady(fw + "-fleet", Duration.ofSeconds(120));
            nodeEvents.put(fw, new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkNodeEvents(fw)));
        }
        events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
        // Ready is not yet heard: submitted before both frameworks report their nodes, the job would
        // be judged against the frameworks the dispatcher knows (none with pool=faults) and fail.
        try (TopicTail<FrameworkHeartbeat> heartbeats = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkHeartbeats)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!FRAMEWORKS.stream().allMatch(fw -> nodesReported(heartbeats, fw) == 8) && System.nanoTime() < deadline) Thread.sleep(200);
            for (String fw : FRAMEWORKS) assertEquals(8, nodesReported(heartbeats, fw), fw + " reports its fleet");
        }
    }

    /** The nodes of a framework in the newest heartbeat of each of its shards. */
    private static int nodesReported(TopicTail<FrameworkHeartbeat> heartbeats, String fw) {
        Map<Integer, Integer> byShard = new HashMap<>();
        heartbeats.values(h -> h.getFrameworkId().equals(fw)).forEach(h -> byShard.put(h.getShard(), h.getNodes()));
        return byShard.values().stream().mapToInt(Integer::intValue).sum();
    }

    @AfterAll
    void stopThem() throws Exception {
        if (stack == null) return;
        for (String fw : FRAMEWORKS) {
            stack.stop(fw + "-fleet");
            stack.stop(fw);
        }
        for (TopicTail<AttemptEvent> tail : nodeEvents.values()) tail.close();
        if (events != null) events.close();
    }

    /**
     * Frozen until the dispatcher has moved some of what faults-a had not placed (at least 12 s, the
     * shard's own fence, and at most 60 s), then resumed. The move takes the dispatcher's 10 s
     * heartbeat timeout + 5 s grace of silence it could see; while faults-a's frozen transaction is
     * open (until the broker aborts it, docs/scheduling.md) the heartbeats topic shows no framework's
     * heartbeat, and that blindness is nobody's silence, so the move comes later than 15 s.
     */
    @Test
    @Order(1)
    void aFrameworkFrozenPastTheHeartbeatTimeoutHasItsQueueMovedAndNothingRunsTwice() throws Exception {
        long[] frozenAt = new long[1];
        String jobId = runThrough("frozen-framework", () -> {
            stack.pause("faults-a", true);
            frozenAt[0] = System.currentTimeMillis();
            long deadline = frozenAt[0] + 60_000;
            while ((movedFromSilence(frozenAt[0]).isEmpty() || System.currentTimeMillis() - frozenAt[0] < 12_000)
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
            }
            stack.pause("faults-a", false);
        });
        List<TopicTail.Seen<TaskEvent>> moved = movedFromSilence(frozenAt[0]).stream().filter(e -> e.value().getJobId().equals(jobId)).toList();
        assertFalse(moved.isEmpty(), "the dispatcher moved what faults-a had not placed within 60 s of its freeze");
        long firstMove = moved.stream().mapToLong(TopicTail.Seen::at).min().orElseThrow() - frozenAt[0];
        // 15 s of silence, counted from faults-a's last heartbeat the dispatcher read, which a loaded machine may
        // have delayed by seconds before the freeze: the bound is the heartbeat timeout alone
        assertTrue(firstMove >= 10_000, "moved " + firstMove + " ms into the freeze, before even the heartbeat timeout (10 s)");
        System.out.printf("frozen framework: %d attempts moved by the dispatcher, the first %d ms into the freeze; %d placed ones stopped on a fence%n",
                moved.size(), firstMove,
                events.values(e -> e.getJobId().equals(jobId) && e.getReason() != null && e.getReason().startsWith("stopped: the dispatcher")).size());
    }

    /** The dispatcher's moves of attempts a silent framework had not placed, seen on the events topic since then. */
    private List<TopicTail.Seen<TaskEvent>> movedFromSilence(long since) {
        return events.seen(e -> e.getFailureClass() == FailureClass.FRAMEWORK_LOST && e.getReason() != null
                && e.getReason().contains("sent no heartbeat")).stream().filter(s -> s.at() >= since).toList();
    }

    @Test
    @Order(2)
    void aBrokerKilledAndRestartedMidRunFencesNothing() throws Exception {
        String jobId = runThrough("broker-outage", () -> {
            stack.killBroker();
            Thread.sleep(20_000); // longer than the dispatcher's heartbeat timeout and grace
            stack.broker(true);
        });
        List<String> fenced = events.values(e -> e.getJobId().equals(jobId) && e.getFailureClass() == FailureClass.FRAMEWORK_LOST)
                .stream().map(e -> e.getAttemptId() + ": " + e.getReason()).toList();
        assertTrue(fenced.isEmpty(), () -> "a broker outage is not a framework outage, yet " + fenced.size() + " attempts were moved, e.g. "
                + fenced.subList(0, Math.min(3, fenced.size())));
    }

    /**
     * Submits the scatter, injects the fault at 40 % done, and checks the end state.
     *
     * @return the job id
     */
    private String runThrough(String name, Fault fault) throws Exception {
        TaskSpec shards = task("shards", "true", 0.5, "64Mi");
        shards.setNodeLabels(Map.of("pool", "faults"));
        shards.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) SHARDS).setShardSize(1).build());
        JobSubmission submission = job(name, shards);
        String jobId = JobIds.forSubmission(submission.getSubmissionId());
        long submitted = System.currentTimeMillis();
        try (var results = client.openResults()) {
            client.submit(submission);
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (succeeded(jobId) < SHARDS * 2 / 5 && System.nanoTime() < deadline) Thread.sleep(100);
            int before = succeeded(jobId);
            long injected = System.currentTimeMillis();
            fault.inject();
            long recovered = System.currentTimeMillis();
            JobResult result = results.await(jobId, Duration.ofSeconds(180))
                    .orElseThrow(() -> new AssertionError(name + ": the job stalled at " + succeeded(jobId) + "/" + SHARDS + "; logs in " + stack.logs()));
            assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result));
            long firstSuccessAfter = events.seen(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                    .mapToLong(TopicTail.Seen::at).filter(t -> t > recovered).min().orElse(recovered);
            System.out.printf("%s: fault at %d/%d units, %d ms long; first success %d ms after it ended; makespan %d ms%n", name,
                    before, SHARDS, recovered - injected, firstSuccessAfter - recovered, System.currentTimeMillis() - submitted);
        }
        Thread.sleep(3_000); // late reports of any stray attempt would arrive by now
        Map<String, Long> successes = events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .collect(Collectors.groupingBy(TaskEvent::getTaskId, Collectors.counting()));
        assertEquals(SHARDS, successes.size(), "every unit succeeded");
        assertEquals(Map.of(), successes.entrySet().stream().filter(e -> e.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), "no unit succeeded twice");
        List<AttemptEvent> reports = new ArrayList<>();
        nodeEvents.values().forEach(tail -> reports.addAll(tail.values(e -> e.getJobId().equals(jobId))));
        AttemptTimeline timeline = new AttemptTimeline(reports, events.values(e -> e.getJobId().equals(jobId)));
        assertEquals(List.of(), timeline.overlaps(), "no two attempts of one unit ran at once");
        assertEquals(Map.of(), timeline.doubleSuccesses(), "no node ran a unit to success twice");
        System.out.printf("%s: %d attempts ran for %d units, 0 overlapping, 0 double successes%n", name, timeline.attempts(), SHARDS);
        return jobId;
    }

    private int succeeded(String jobId) {
        return (int) events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TaskEvent::getTaskId).distinct().count();
    }

    @FunctionalInterface
    private interface Fault {
        void inject() throws Exception;
    }
}
