package io.flash.batch.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/** The adapter against a real Grid Engine on this machine (infra/clusters/gridengine.sh start). */
@Timeout(180)
class GridEngineTest {

    @BeforeAll
    static void cluster() throws Exception {
        // Ready when a queue instance of all.q is in no state that keeps jobs off it (u: its execd is not up; E, d).
        OneMachineCluster.ensure("gridengine", List.of("sge_qmaster", "sge_execd"), List.of("qstat", "-f"), out -> out.lines()
                .filter(l -> l.startsWith("all.q@")).map(l -> l.trim().split("\\s+"))
                .anyMatch(f -> f.length < 6 || !f[5].matches(".*[uEd].*")));
    }

    private final GridEngine sge = new GridEngine(Duration.ofSeconds(10), "smp");
    @TempDir
    Path dir;

    private Cluster.Job awaitEnd(String name) throws InterruptedException {
        return OneMachineCluster.awaitEnd(sge, name, Duration.ofSeconds(150));
    }

    private static String name() {
        return OneMachineCluster.jobName();
    }

    @Test
    void jobsEndWithTheirExitCodesAndTheirOutput() throws Exception {
        String ok = name(), bad = name();
        Path out = dir.resolve("logs/ok.out");
        sge.submit(new Cluster.JobSpec(ok, 1, 64L << 20, 60L, null, "echo hello from grid engine\n", out.toString()));
        sge.submit(new Cluster.JobSpec(bad, 1, 64L << 20, null, null, "exit 4\n", dir.resolve("logs/bad.out").toString()));
        Cluster.Job succeeded = awaitEnd(ok);
        assertEquals(Cluster.Phase.SUCCEEDED, succeeded.phase(), succeeded.toString());
        assertNotNull(succeeded.node());
        assertEquals("hello from grid engine\n", Files.readString(out));
        Cluster.Job failed = awaitEnd(bad);
        assertEquals(Cluster.Phase.FAILED, failed.phase());
        assertEquals(4, failed.exitCode());
    }

    /** qstat forgets them at once; one qacct of their shared beginning says how each ended. */
    @Test
    void theEndedAttemptsOfOneFlashJobAreReadFromTheAccountingTogether() throws Exception {
        String job = "t." + UUID.randomUUID().toString().substring(0, 8) + ".job-" + UUID.randomUUID() + ".";
        List<String> names = List.of(job + "a.1", job + "b.1", job + "c.2");
        List<String> scripts = List.of("exit 0\n", "exit 3\n", "exit 0\n");
        for (int i = 0; i < names.size(); i++) {
            sge.submit(new Cluster.JobSpec(names.get(i), 1, 64L << 20, null, null, scripts.get(i), dir.resolve("logs/" + i + ".out").toString()));
        }
        for (String name : names) awaitEnd(name);
        assertEquals(job, GridEngine.flashJobPart(names.get(0)));
        Map<String, Cluster.Job> ended = new HashMap<>();
        for (Cluster.Job j : sge.jobs(job.substring(0, 2), names)) ended.put(j.name(), j);
        assertEquals(Set.copyOf(names), ended.keySet());
        assertEquals(Cluster.Phase.SUCCEEDED, ended.get(names.get(0)).phase());
        assertEquals(Cluster.Phase.FAILED, ended.get(names.get(1)).phase());
        assertEquals(3, ended.get(names.get(1)).exitCode());
        assertEquals(Cluster.Phase.SUCCEEDED, ended.get(names.get(2)).phase());
    }

    @Test
    void anArraysElementsRunTheirOwnScriptsEndTheirOwnWayAreListedUnderTheirOwnNamesAndDeletedOneByOne() throws Exception {
        String prefix = "t-" + UUID.randomUUID(), array = prefix + ".a.s_.1";
        SortedMap<Integer, Cluster.JobSpec> elements = new TreeMap<>();
        for (int i : List.of(3, 5, 7, 8)) { // qsub -t takes runs: 3-7:2 and 8
            String script = i == 7 ? "sleep 300\n" : "echo element " + i + "\nexit " + (i == 3 ? 0 : i) + "\n";
            elements.put(i, new Cluster.JobSpec(ArrayNames.element(array, i), 1, 64L << 20, null, null, script,
                    dir.resolve("e" + i + ".out").toString()));
        }
        Map<Integer, String> ids = sge.submitArray(new Cluster.ArraySpec(array, elements, dir.resolve("scripts/e%a.sh").toString(),
                dir.resolve("e%a.out").toString()));
        assertEquals(Set.of(3, 5, 7, 8), ids.keySet());
        Set<String> names = Set.of(prefix + ".a.s3.1", prefix + ".a.s5.1", prefix + ".a.s7.1", prefix + ".a.s8.1");
        // An element that exits at once can leave qstat before the first look and reach qacct a moment
        // later: known names are looked up in the accounting too, and looked at again until all are seen.
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 50 && !seen.containsAll(names); i++) {
            if (i > 0) Thread.sleep(200);
            sge.jobs(prefix, names).forEach(j -> seen.add(j.name()));
        }
        assertEquals(names, seen, "each element under its own name");
        for (int i = 0; i < 300 && element(prefix, 7, names).phase() != Cluster.Phase.RUNNING; i++) Thread.sleep(200);
        sge.cancel(ids.get(7));
        Map<String, Cluster.Job> ended = new HashMap<>();
        for (int i = 0; i < 150 && ended.size() < 4; i++) {
            for (Cluster.Job j : sge.jobs(prefix, names)) {
                if (j.phase() != Cluster.Phase.QUEUED && j.phase() != Cluster.Phase.RUNNING) ended.put(j.name(), j);
            }
            Thread.sleep(500);
        }
        assertEquals(Cluster.Phase.SUCCEEDED, ended.get(prefix + ".a.s3.1").phase(), ended.toString());
        assertEquals(5, ended.get(prefix + ".a.s5.1").exitCode(), ended.toString());
        assertEquals(8, ended.get(prefix + ".a.s8.1").exitCode(), ended.toString());
        assertEquals(Cluster.Phase.CANCELLED, ended.get(prefix + ".a.s7.1").phase(), "the one deleted, alone: " + ended);
        assertEquals(ids.get(5), ended.get(prefix + ".a.s5.1").id(), "found by the id it was submitted under");
        assertEquals("element 3\n", Files.readString(dir.resolve("e3.out")));
        assertEquals("element 8\n", Files.readString(dir.resolve("e8.out")));
    }

    private Cluster.Job element(String prefix, int index, Set<String> names) {
        return sge.jobs(prefix, names).stream().filter(j -> j.name().equals(prefix + ".a.s" + index + ".1")).findFirst().orElseThrow();
    }

    @Test
    void indicesGoToQsubAsArithmeticRuns() {
        assertEquals(List.of(List.of(0, 2, 4), List.of(5, 6, 7), List.of(9)), ArrayNames.arithmeticRuns(List.of(0, 2, 4, 5, 6, 7, 9)));
        assertEquals(List.of(List.of(1, 4, 7, 10)), ArrayNames.arithmeticRuns(List.of(1, 4, 7, 10)), "a scatter split between three shards");
    }

    @Test
    void aDeletedJobEndsCancelledAndTheQueueSaysWhatItOffers() throws Exception {
        String name = name();
        String id = sge.submit(new Cluster.JobSpec(name, 1, 64L << 20, null, null, "sleep 300\n", dir.resolve("long.out").toString()));
        for (int i = 0; i < 60 && OneMachineCluster.job(sge, name).phase() != Cluster.Phase.RUNNING; i++) Thread.sleep(500);
        sge.cancel(id);
        assertEquals(Cluster.Phase.CANCELLED, awaitEnd(name).phase());
        List<Cluster.Partition> queues = sge.partitions();
        assertFalse(queues.isEmpty());
        assertTrue(queues.get(0).cpusTotal() >= 1 && queues.get(0).memoryTotal() > 0, queues.toString());
    }

    @Test
    void aTaskOfTwoCpusTakesTwoSlotsOfTheParallelEnvironment() throws Exception {
        String name = name();
        Path out = dir.resolve("logs/pe.out");
        sge.submit(new Cluster.JobSpec(name, 1.5, 64L << 20, null, null, "echo slots $NSLOTS\n", out.toString()));
        assertEquals(Cluster.Phase.SUCCEEDED, awaitEnd(name).phase());
        assertEquals("slots 2\n", Files.readString(out));
    }

    @Test
    void accountingRecordsAndSizesRead() {
        Cluster.Job job = GridEngine.finished("==============================================================\nqname all.q\nhostname h1\n"
                + "jobname x.a.1\njobnumber 9\nfailed 37  : qmaster enforced h_rt, h_cpu, or h_vmem limit\nexit_status 137\n");
        assertEquals(Cluster.Phase.TIMEOUT, job.phase());
        assertEquals("h1", job.node());
        assertEquals(Cluster.Phase.NODE_LOST, GridEngine.queuedPhase("Eqw"));
        assertEquals(Cluster.Phase.RUNNING, GridEngine.queuedPhase("r"));
        assertEquals(Cluster.Phase.QUEUED, GridEngine.queuedPhase("qw"));
        assertEquals(23L << 30 | 512L << 20, GridEngine.bytes("23.5G"));
    }
}
