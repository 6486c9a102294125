package io.flash.executor.attempt;

import io.flash.common.cache.CacheKeys;
import io.flash.executor.cache.CacheIndex;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.files.AddressRule;
import io.flash.executor.files.Scratch;
import io.flash.executor.files.Staging;
import io.flash.executor.files.TaskOwner;
import io.flash.schema.*;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * One attempt's life on a node, over an engine in memory: what it reports (STARTED, then exactly
 * one final event with the right class), and that its container is gone afterwards.
 */
class AttemptRunnerTest {

    @TempDir
    Path dir;
    private final MemoryEngine engine = new MemoryEngine();
    private final List<AttemptEvent> reported = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Kill> killReasons = new ConcurrentHashMap<>();
    private final OutsideKills outsideKills = new OutsideKills();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private AttemptRunner runner() throws Exception {
        return runner(CacheIndex.EMPTY);
    }

    private AttemptRunner runner(CacheIndex cache) throws Exception {
        NodeSettings node = new NodeSettings("n1", "ecs", new Capacity(4.0, 8L << 30, 0L, 0), DiskType.SSD, true, Map.of(),
                Duration.ofSeconds(2), Duration.ofMinutes(1), 20, dir.resolve("cgroup"), Duration.ofSeconds(1), dir.resolve("work"),
                65536, 1 << 20, null, 0L, new NodeSettings.Sandbox(128, Duration.ofSeconds(5)), dir.resolve("shared"), "");
        AttemptReporter reporter = new AttemptReporter() {
            @Override
            public void report(AttemptEvent event) {
                reported.add(event);
            }

            @Override
            public void log(LogChunk chunk, boolean await) {
            }
        };
        return new AttemptRunner(engine, node, reporter, killReasons,
                new UsageSampler(new CgroupUsage(dir.resolve("cgroup")), timer, Duration.ofSeconds(1), sample -> {
                }),
                new Staging(dir.resolve("work"), () -> null, () -> null, dir.resolve("shared"),
                        new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)), AddressRule.of("")), new StuckContainers(), outsideKills,
                meters, cache);
    }

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private double lookups(String result) {
        return meters.get("flash.executor.cache.lookups").tag("result", result).counter().count();
    }

    private Assignment assignment(String name, Long timeoutSeconds) {
        TaskReady r = ready("j", task(name), 1);
        r.getTask().setTimeoutSeconds(timeoutSeconds);
        return Assignment.newBuilder().setNodeId("n1").setAction(AssignmentAction.RUN).setJobId(r.getJobId())
                .setTaskId(r.getTaskId()).setAttemptId(r.getAttemptId()).setTask(r.getTask()).setAssignedAt(1L).build();
    }

    /** Prepares and runs it to its end, as the node does. */
    private AttemptEvent run(Assignment a) throws Exception {
        return run(a, CacheIndex.EMPTY);
    }

    private AttemptEvent run(Assignment a, CacheIndex cache) throws Exception {
        AttemptRunner runner = runner(cache);
        String container = runner.prepare(a);
        if (container != null) {
            runner.startAndWait(AttemptRef.of(a), container, a.getTask().getTimeoutSeconds(), Staging.Outputs.of(a.getTask()));
        }
        AttemptEvent last = reported.get(reported.size() - 1);
        assertEquals(1, reported.stream().filter(e -> e.getState() != AttemptState.STARTED).count(), "exactly one final event: " + reported);
        assertFalse(engine.exists(a.getAttemptId()), "its container is removed once the end is reported");
        return last;
    }

    @Test
    void aProgramThatSucceedsReportsItsStartItsExitAndItsOutput() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.exits("total 500500\n", 0));
        AttemptEvent end = run(a);
        assertEquals(List.of(AttemptState.STARTED, AttemptState.SUCCEEDED), reported.stream().map(AttemptEvent::getState).toList());
        assertEquals(0, end.getExitCode());
        assertTrue(end.getStdoutTail().contains("total 500500"), end.getStdoutTail());
    }

    /** The program's files, as if it had written them: this engine runs nothing. */
    private Path workspace(Assignment a, Map<String, String> files) throws Exception {
        Path workspace = dir.resolve("work").resolve("jobs").resolve(a.getJobId());
        Files.createDirectories(workspace);
        for (var file : files.entrySet()) Files.writeString(workspace.resolve(file.getKey()), file.getValue());
        return workspace;
    }

    private Assignment keyed(String attempt) {
        Assignment a = assignment("align", null);
        a.setAttemptId(a.getAttemptId() + attempt);
        a.getTask().setInputs(List.of("reads.fq"));
        a.getTask().setOutputs(List.of("out.sam"));
        engine.program(a.getAttemptId(), MemoryEngine.Program.exits("", 0));
        return a;
    }

    @Test
    void aSucceededAttemptReportsItsCacheKeyAndEachOutputsSizeAndHash() throws Exception {
        Assignment first = keyed("-1");
        workspace(first, Map.of("reads.fq", "@r1", "out.sam", "r1\tchr1\n"));
        AttemptEvent end = run(first);
        assertEquals(AttemptState.SUCCEEDED, end.getState());
        assertTrue(end.getCacheKey().matches("v2:[0-9a-f]{64}"), end.getCacheKey());
        assertEquals(List.of(new OutputFile("out.sam", 8L, CacheKeys.content("r1\tchr1\n".getBytes(StandardCharsets.UTF_8)))),
                end.getOutputFiles());

        reported.clear();
        Assignment same = keyed("-2");
        assertEquals(end.getCacheKey(), run(same).getCacheKey(), "the same unit over the same input: the same key");

        reported.clear();
        Assignment changed = keyed("-3");
        workspace(changed, Map.of("reads.fq", "@r2"));
        assertNotEquals(end.getCacheKey(), run(changed).getCacheKey(), "another input's content: another key");

        reported.clear();
        Assignment madeUpstream = keyed("-4");
        madeUpstream.getTask().setUpstreamKeys(Map.of("reads.fq", "v1:trim"));
        String chained = run(madeUpstream).getCacheKey();
        reported.clear();
        Assignment chainedAgain = keyed("-5");
        chainedAgain.getTask().setUpstreamKeys(Map.of("reads.fq", "v1:trim"));
        workspace(chainedAgain, Map.of("reads.fq", "@r3"));
        assertEquals(chained, run(chainedAgain).getCacheKey(), "an input an upstream task made is named by its key, not read");
    }

    @Test
    void aUnitWhoseKeyTheIndexHoldsIsServedFromItsOutputsAndOneWhoseOutputChangedRuns() throws Exception {
        Assignment first = keyed("-1");
        workspace(first, Map.of("reads.fq", "@r1", "out.sam", "r1\tchr1\n"));
        AttemptEvent made = run(first);
        Map<String, CacheEntry> index = new HashMap<>();
        CacheIndex view = (scope, key) -> Optional.ofNullable(index.get(scope + "|" + key));
        index.put("owner/alice|" + made.getCacheKey(), CacheEntry.newBuilder().setScope("owner/alice").setCacheKey(made.getCacheKey())
                .setJobId(first.getJobId()).setTaskId(first.getTaskId()).setAttemptId(first.getAttemptId())
                .setOutputs(made.getOutputFiles()).setCreatedAt(1L).setLastUsedAt(1L).build());

        reported.clear();
        Assignment again = keyed("-2");
        again.setJobId("k");
        again.getTask().setCacheScope("owner/alice");
        workspace(again, Map.of("reads.fq", "@r1"));
        AttemptEvent served = run(again, view);
        assertEquals(List.of(AttemptState.SUCCEEDED), reported.stream().map(AttemptEvent::getState).toList(), "no container, no start");
        assertEquals(first.getAttemptId(), served.getCachedFrom());
        assertEquals("r1\tchr1\n", Files.readString(dir.resolve("work/jobs/k/out.sam")), "its output copied into its own job's workspace");
        assertFalse(engine.ran(again.getAttemptId()));

        reported.clear();
        Files.writeString(dir.resolve("work/jobs/j/out.sam"), "tampered");
        Assignment third = keyed("-3");
        third.setJobId("m");
        third.getTask().setCacheScope("owner/alice");
        workspace(third, Map.of("reads.fq", "@r1", "out.sam", "recomputed"));
        AttemptEvent ran = run(third, view);
        assertNull(ran.getCachedFrom());
        assertEquals("owner/alice|" + made.getCacheKey(), reported.get(0).getCacheRejected(), "its start says which entry failed its check");
        assertTrue(engine.ran(third.getAttemptId()));

        reported.clear();
        Assignment otherOwner = keyed("-4");
        otherOwner.setJobId("n");
        otherOwner.getTask().setCacheScope("owner/bob");
        workspace(otherOwner, Map.of("reads.fq", "@r1", "out.sam", "bob's"));
        assertNull(run(otherOwner, view).getCachedFrom(), "another owner's identical unit does not see alice's entry");
        assertEquals(List.of(1.0, 1.0, 1.0), List.of(lookups("hit"), lookups("unusable"), lookups("miss")));
        assertEquals(8.0, meters.get("flash.executor.cache.reused").counter().count(), "the bytes of out.sam the hit copied");
    }

    /** docs/caching.md: a hit restores declared outputs only, so a unit that wrote more says what, and is not indexed. */
    @Test
    void aUnitTheCacheMayServeNamesWhatItWroteWithoutDeclaringIt() throws Exception {
        Assignment a = keyed("-1");
        a.getTask().setCacheScope("owner/alice");
        a.getTask().setOutputs(List.of("out.sam", "stats"));
        Path workspace = workspace(a, Map.of("reads.fq", "@r1", "before.txt", "an earlier step's"));
        for (String earlier : List.of("reads.fq", "before.txt")) { // an earlier step's, not written within the file clock's lag
            Files.setLastModifiedTime(workspace.resolve(earlier), FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        }
        engine.onStart(a.getAttemptId(), () -> {
            try {
                Files.writeString(workspace.resolve("out.sam"), "r1\n");
                Files.createDirectories(workspace.resolve("stats"));
                Files.writeString(workspace.resolve("stats/depth.txt"), "9\n");
                Files.createDirectories(workspace.resolve("idx"));
                Files.writeString(workspace.resolve("idx/ref.fa.bwt"), "index");
                Files.writeString(workspace.resolve("ref.fa.amb"), "index");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        AttemptEvent end = run(a);
        assertEquals(AttemptState.SUCCEEDED, end.getState());
        assertEquals(List.of("idx/ref.fa.bwt", "ref.fa.amb"), end.getUndeclaredWrites(),
                "what it wrote beside its outputs (a declared directory's contents are declared); not what was there before");

        reported.clear();
        Assignment unservable = keyed("-2");
        Path again = workspace(unservable, Map.of("reads.fq", "@r1"));
        engine.onStart(unservable.getAttemptId(), () -> {
            try {
                Files.writeString(again.resolve("extra.txt"), "x");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertEquals(List.of(), run(unservable).getUndeclaredWrites(), "a unit the cache may not serve is not looked at");
    }

    @Test
    void aFailedAttemptReportsNoKey() throws Exception {
        Assignment a = keyed("-1");
        workspace(a, Map.of("reads.fq", "@r1", "out.sam", ""));
        engine.program(a.getAttemptId(), MemoryEngine.Program.exits("", 3));
        AttemptEvent end = run(a);
        assertEquals(AttemptState.FAILED, end.getState());
        assertNull(end.getCacheKey());
        assertEquals(List.of(), end.getOutputFiles());
    }

    @Test
    void aNonZeroExitIsTheUsersWithItsCode() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.exits("no such file\n", 3));
        AttemptEvent end = run(a);
        assertEquals(AttemptState.FAILED, end.getState());
        assertEquals(FailureClass.USER, end.getFailureClass());
        assertEquals(3, end.getExitCode());
    }

    @Test
    void theKernelsOomKillIsToldApartSoThePlannerGrowsTheMemory() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.oom());
        assertEquals(FailureClass.OOM_KILLED, run(a).getFailureClass());
    }

    @Test
    void aProgramPastItsTimeoutIsKilledAndFailsAsTimeout() throws Exception {
        Assignment a = assignment("a", 1L);
        engine.program(a.getAttemptId(), MemoryEngine.Program.forever());
        AttemptEvent end = run(a);
        assertEquals(FailureClass.TIMEOUT, end.getFailureClass());
        assertEquals("killed after its timeout of 1 s", end.getReason());
    }

    @Test
    void aCancelEndsItAsCancelledWithTheReason() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.forever());
        timer.schedule(() -> killReasons.put(a.getAttemptId(), Kill.asked("cancelled")), 200, java.util.concurrent.TimeUnit.MILLISECONDS);
        AttemptEvent end = run(a);
        assertEquals(AttemptState.CANCELLED, end.getState());
        assertEquals("cancelled", end.getReason());
    }

    @Test
    void aKillFromOutsideIsTheInfrastructuresNotTheUsers() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.forever());
        timer.schedule(() -> {
            outsideKills.record(engine.containerOf(a.getAttemptId()), "9");
            engine.killFromOutside(a.getAttemptId());
        }, 200, java.util.concurrent.TimeUnit.MILLISECONDS);
        AttemptEvent end = run(a);
        assertEquals(FailureClass.INFRASTRUCTURE, end.getFailureClass());
        assertTrue(end.getReason().startsWith("the container was killed from outside Flash (signal 9"), end.getReason());
    }

    @Test
    void aProgramThatKillsItselfIsStillTheUsers() throws Exception {
        Assignment a = assignment("a", null);
        engine.program(a.getAttemptId(), MemoryEngine.Program.exits("Killed\n", 137)); // no kill event from the engine
        AttemptEvent end = run(a);
        assertEquals(FailureClass.USER, end.getFailureClass());
        assertEquals(137, end.getExitCode());
    }

    @Test
    void anEngineThatCannotBeReachedWhileCreatingIsTheInfrastructures() throws Exception {
        Assignment a = assignment("a", null);
        engine.refuseCreate = new RuntimeException("Connection refused: /var/run/docker.sock");
        AttemptEvent end = run(a);
        assertEquals(List.of(AttemptState.FAILED), reported.stream().map(AttemptEvent::getState).toList(), "never started");
        assertEquals(FailureClass.INFRASTRUCTURE, end.getFailureClass());
        assertTrue(end.getReason().startsWith("could not prepare the container: "), end.getReason());
    }
}
