package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.MemoryCluster;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.flash.common.testing.Samples.ready;
import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

/** The cluster worker's calls and reports over a cluster in memory (the port, not a mocked library). */
class ClusterWorkerTest {

    private final MemoryCluster cluster = new MemoryCluster();
    private final List<ClusterReport> reports = new ArrayList<>();
    private final ClusterWorker worker = new ClusterWorker("slurm", cluster, new JobSpecs(new JobScripts("slurm", Path.of("/shared/flash"), 128)),
            ClusterWorker.EndedMarks.NONE, reports::add);

    private static ClusterCommand submit(int shard, String task) {
        TaskReady r = ready("j", task(task), 1);
        return ClusterCommand.newBuilder().setShard(shard).setAction(ClusterAction.SUBMIT).setAttemptId(r.getAttemptId())
                .setJobName(ClusterNames.of("slurm", shard, r.getAttemptId())).setReady(r).setAt(1).build();
    }

    @Test
    void oneLookIsSplitAmongTheShardsItServesAndOtherShardsJobsAreLeftToTheirWorker() {
        worker.assigned(List.of(0, 2));
        worker.carryOut(List.of(submit(0, "a"), submit(2, "b")), 1);
        cluster.jobs.put("slurm.1.j.c.1", new Cluster.Job("9", "slurm.1.j.c.1", Cluster.Phase.RUNNING, "RUNNING", null, "c1", null));
        reports.clear();
        worker.look(5);
        assertEquals(List.of(0, 2), reports.stream().map(ClusterReport::getShard).toList(), "one report per shard served");
        assertEquals(List.of("slurm.0.j.a.1"), reports.get(0).getJobs().stream().map(ClusterJobState::getName).toList());
        assertEquals(List.of("slurm.2.j.b.1"), reports.get(1).getJobs().stream().map(ClusterJobState::getName).toList());
        assertEquals(5, reports.get(0).getLookedAt());
        assertEquals(1, reports.get(0).getPartitions().size());
        worker.revoked(List.of(2));
        reports.clear();
        worker.look(6);
        assertEquals(List.of(0), reports.stream().map(ClusterReport::getShard).toList());
    }

    @Test
    void aLongBatchLetsTheLooksAndWithThemTheHeartbeatsGoOnBetweenItsCommands() {
        worker.assigned(List.of(0));
        int[] calls = {0};
        worker.carryOut(List.of(submit(0, "a"), submit(0, "b"), submit(0, "c")), 1, () -> {
            if (++calls[0] == 2) worker.look(2); // the loop's tick came due after the second submission
        });
        assertEquals(List.of(ClusterReportKind.SUBMITTED, ClusterReportKind.SUBMITTED, ClusterReportKind.STATES, ClusterReportKind.SUBMITTED),
                reports.stream().map(ClusterReport::getKind).toList());
        assertEquals(List.of("slurm.0.j.a.1", "slurm.0.j.b.1"), reports.get(2).getJobs().stream().map(ClusterJobState::getName).toList(),
                "the look lists what was submitted before it, whose reports went first");
        assertEquals(3, cluster.submitted.size(), "and the batch goes on");
    }

    @Test
    void aSilentControllerIsAskedOncePerBatchAndEveryShardHearsWhy() {
        worker.assigned(List.of(0, 1));
        cluster.down = true;
        worker.carryOut(List.of(submit(0, "a"), submit(0, "b"), submit(1, "c")), 1);
        assertEquals(List.of(ClusterReportKind.UNREACHABLE, ClusterReportKind.UNREACHABLE, ClusterReportKind.UNREACHABLE),
                reports.stream().map(ClusterReport::getKind).toList());
        assertTrue(reports.get(0).getReason().contains("did not answer"), reports.get(0).getReason());
        reports.clear();
        worker.look(2);
        assertEquals(2, reports.size());
        assertTrue(reports.stream().allMatch(r -> r.getKind() == ClusterReportKind.UNREACHABLE && r.getJobs().isEmpty()));
    }

    @Test
    void aSubmissionRepeatedInOneBatchIsOneJob() {
        worker.assigned(List.of(0));
        worker.carryOut(List.of(submit(0, "a"), submit(0, "a")), 1);
        assertEquals(List.of("slurm.0.j.a.1"), cluster.submitted);
        assertEquals(List.of("100", "100"), reports.stream().map(ClusterReport::getClusterJobId).toList());
    }
}
