package io.flash.batch.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

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
