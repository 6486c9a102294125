package io.flash.batch.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The adapter against a real Slurm on this machine (infra/clusters/slurm.sh start): submit by attempt
 * name, read the outcome back from the controller, cancel, and the partitions it offers.
 */
@Timeout(120)
class SlurmTest {

    @BeforeAll
    static void cluster() throws Exception {
        // Ready when its node takes jobs: a trailing * (not responding), down or drained would queue them for ever.
        OneMachineCluster.ensure("slurm", List.of("slurmctld", "slurmd"), List.of("sinfo", "-h", "-o", "%T"),
                out -> out.lines().anyMatch(state -> state.strip().matches("idle|mixed|allocated|completing")));
    }

    private final Slurm slurm = new Slurm(Duration.ofSeconds(10));
    @TempDir
    Path dir;

    private Cluster.Job awaitEnd(String name) throws InterruptedException {
        return OneMachineCluster.awaitEnd(slurm, name, Duration.ofSeconds(50));
    }

    private static String name() {
        return OneMachineCluster.jobName();
    }

    @Test
    void aJobEndsWithItsExitCodeAndItsOutputIsWhereItWasAskedFor() throws Exception {
        String ok = name(), bad = name();
        Path out = dir.resolve("ok.out");
        slurm.submit(new Cluster.JobSpec(ok, 0.5, 64L << 20, 60L, null, "#!/bin/sh\necho hello from slurm\n", out.toString()));
        slurm.submit(new Cluster.JobSpec(bad, 1, 64L << 20, null, null, "#!/bin/sh\nexit 3\n", dir.resolve("bad.out").toString()));
        Cluster.Job succeeded = awaitEnd(ok);
        assertEquals(Cluster.Phase.SUCCEEDED, succeeded.phase(), succeeded.toString());
        assertEquals(0, succeeded.exitCode());
        assertNotNull(succeeded.node());
        assertEquals("hello from slurm\n", Files.readString(out));
        Cluster.Job failed = awaitEnd(bad);
        assertEquals(Cluster.Phase.FAILED, failed.phase());
        assertEquals(3, failed.exitCode());
    }

    @Test
    void aCancelledJobIsGoneAndEndsCancelled() throws Exception {
        String name = name();
        String id = slurm.submit(new Cluster.JobSpec(name, 1, 64L << 20, null, null, "#!/bin/sh\nsleep 300\n",
                dir.resolve("long.out").toString()));
        for (int i = 0; i < 100 && OneMachineCluster.job(slurm, name).phase() != Cluster.Phase.RUNNING; i++) Thread.sleep(100);
        slurm.cancel(id);
        assertEquals(Cluster.Phase.CANCELLED, awaitEnd(name).phase());
    }

    @Test
    void anArraysElementsRunTheirOwnScriptsEndTheirOwnWayAreListedUnderTheirOwnNamesAndCancelledOneByOne() throws Exception {
        String prefix = "t-" + UUID.randomUUID(), array = prefix + ".a.s_.1";
        SortedMap<Integer, Cluster.JobSpec> elements = new TreeMap<>();
        for (int i : List.of(3, 5, 6)) {
            String script = i == 6 ? "#!/bin/sh\nsleep 300\n" : "#!/bin/sh\necho element " + i + "\nexit " + (i == 3 ? 0 : i) + "\n";
            elements.put(i, new Cluster.JobSpec(ArrayNames.element(array, i), 1, 64L << 20, null, null, script,
                    dir.resolve("e" + i + ".out").toString()));
        }
        Map<Integer, String> ids = slurm.submitArray(new Cluster.ArraySpec(array, elements, dir.resolve("scripts/e%a.sh").toString(),
                dir.resolve("e%a.out").toString()));
        assertEquals(Set.of(3, 5, 6), ids.keySet());
        Set<String> listed = slurm.jobs(prefix, List.of()).stream().map(Cluster.Job::name).collect(Collectors.toSet());
        assertEquals(Set.of(prefix + ".a.s3.1", prefix + ".a.s5.1", prefix + ".a.s6.1"), listed, "each element under its own name");
        for (int i = 0; i < 300 && element(prefix, 6).phase() != Cluster.Phase.RUNNING; i++) Thread.sleep(100);
        slurm.cancel(ids.get(6));
        Map<String, Cluster.Job> ended = new HashMap<>();
        for (int i = 0; i < 100 && ended.size() < 3; i++) {
            for (Cluster.Job j : slurm.jobs(prefix, List.of())) {
                if (j.phase() != Cluster.Phase.QUEUED && j.phase() != Cluster.Phase.RUNNING) ended.put(j.name(), j);
            }
            Thread.sleep(500);
        }
        assertEquals(Cluster.Phase.SUCCEEDED, ended.get(prefix + ".a.s3.1").phase(), ended.toString());
        assertEquals(5, ended.get(prefix + ".a.s5.1").exitCode(), ended.toString());
        assertEquals(Cluster.Phase.CANCELLED, ended.get(prefix + ".a.s6.1").phase(), "the one cancelled, alone: " + ended);
        assertEquals(ids.get(5), ended.get(prefix + ".a.s5.1").id(), "listed by the id it was submitted under");
        assertEquals("element 3\n", Files.readString(dir.resolve("e3.out")));
        assertEquals("element 5\n", Files.readString(dir.resolve("e5.out")));
    }

    private Cluster.Job element(String prefix, int index) {
        return slurm.jobs(prefix, List.of()).stream().filter(j -> j.name().equals(prefix + ".a.s" + index + ".1")).findFirst().orElseThrow();
    }

    @Test
    void slurmsListsOfArrayIndicesAreReadAndWritten() {
        assertEquals(List.of(0, 1, 2, 3, 7, 9, 11, 13), ArrayNames.expand("0-3,7,9-13:2%4"));
        assertEquals("0-3,7,9-10", ArrayNames.ranges(new TreeSet<>(List.of(10, 0, 1, 2, 3, 7, 9))));
        assertEquals("slurm.0.j.align.s_.2", ArrayNames.arrayOf("slurm.0.j.align.s17.2"));
        assertEquals(17, ArrayNames.indexOf("slurm.0.j.align.s17.2"));
        assertEquals("slurm.0.j.align.s4.2", ArrayNames.element("slurm.0.j.align.s_.2", 4));
        assertEquals("j.align.s%a.2", ArrayNames.pattern("j.align.s17.2"));
        assertNull(ArrayNames.arrayOf("slurm.0.j.align.2"), "an unscattered task's attempt is no array's");
    }

    @Test
    void thePartitionsSayWhatTheyOffer() {
        List<Cluster.Partition> partitions = slurm.partitions();
        assertFalse(partitions.isEmpty());
        Cluster.Partition p = partitions.get(0);
        assertTrue(p.nodesUp() >= 1 && p.cpusTotal() >= 1 && p.memoryTotal() > 0, p.toString());
        assertEquals(Map.of("partition", p.name()), p.labels());
    }

    @Test
    void everySlurmStateHasAFlashMeaning() {
        assertEquals(Cluster.Phase.OUT_OF_MEMORY, Slurm.phase("OUT_OF_MEMORY"));
        assertEquals(Cluster.Phase.NODE_LOST, Slurm.phase("NODE_FAIL"));
        assertEquals(Cluster.Phase.NODE_LOST, Slurm.phase("BOOT_FAIL"));
        assertEquals(Cluster.Phase.TIMEOUT, Slurm.phase("TIMEOUT"));
        assertEquals(Cluster.Phase.PREEMPTED, Slurm.phase("PREEMPTED"));
        assertEquals(Cluster.Phase.QUEUED, Slurm.phase("PENDING"));
        assertEquals(Cluster.Phase.RUNNING, Slurm.phase("COMPLETING"), "ended, epilog still running: not final yet");
        Cluster.Job killed = Slurm.job(Slurm.fields("JobId=7 JobName=x.a.1 JobState=FAILED ExitCode=0:9 NodeList=vm Reason=None"));
        assertEquals(137, killed.exitCode(), "a signal is reported as 128 + signal, like a container's exit");
    }
}
