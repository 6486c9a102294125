package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.MemoryCluster;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.ready;
import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

/** The cluster worker's calls and reports over a cluster in memory (the port, not a mocked library). */
class ClusterWorkerTest {

    private final MemoryCluster cluster = new MemoryCluster();
    private final List<ClusterReport> reports = new ArrayList<>();
    /** The cluster id each attempt's job script wrote as it started, by attempt. */
    private final Map<String, String> startedMarks = new HashMap<>();
    private final ClusterWorker worker = new ClusterWorker("slurm", cluster, new JobSpecs(new JobScripts("slurm", Path.of("/shared/flash"), 128)),
            ClusterWorker.EndedMarks.NONE, (job, attempt) -> startedMarks.get(attempt), reports::add);

    private static ClusterCommand submit(int shard, String task) {
        TaskReady r = ready("j", task(task), 1);
        return ClusterCommand.newBuilder().setShard(shard).setAction(ClusterAction.SUBMIT).setAttemptId(r.getAttemptId())
                .setJobName(ClusterNames.of("slurm", shard, r.getAttemptId())).setReady(r).setAt(1).build();
    }

    /** Shard {@code index} of scattered task {@code task}, attempt {@code attempt}. */
    private static ClusterCommand submitShard(int shard, String task, int index, int attempt) {
        TaskReady r = ready("j", task(task), attempt);
        r.setTaskId("j." + task + ".s" + index);
        r.setAttemptId("j." + task + ".s" + index + "." + attempt);
        return ClusterCommand.newBuilder().setShard(shard).setAction(ClusterAction.SUBMIT).setAttemptId(r.getAttemptId())
                .setJobName(ClusterNames.of("slurm", shard, r.getAttemptId())).setReady(r).setAt(1).build();
    }

    /** Shards 0 and 1 of task align, in one batch, to a cluster that has arrays. */
    private void submitTwoShardsOnAnArrayCluster() {
        cluster.maxArrayIndex = 1000;
        worker.assigned(List.of(0));
        worker.carryOut(List.of(submitShard(0, "align", 0, 1), submitShard(0, "align", 1, 1)), 1);
    }

    private List<String> submittedIds() {
        return reports.stream().filter(r -> r.getKind() == ClusterReportKind.SUBMITTED).map(ClusterReport::getClusterJobId).toList();
    }

    @Test
    void shardsOfOneTaskSentTogetherGoAsOneArrayAndEveryOtherSubmissionAlone() {
        cluster.maxArrayIndex = 1000;
        worker.assigned(List.of(0, 1));
        worker.carryOut(List.of(submitShard(0, "align", 0, 1), submit(0, "merge"), submitShard(0, "align", 3, 1),
                submitShard(0, "align", 7, 2), submitShard(1, "align", 1, 1), submitShard(0, "align", 5, 1),
                submitShard(0, "align", 1001, 1)), 1);
        assertEquals(List.of("slurm.0.j.align.s_.1"), cluster.arrayNames);
        assertEquals(List.of(List.of("slurm.0.j.align.s0.1", "slurm.0.j.align.s3.1", "slurm.0.j.align.s5.1")),
                cluster.arrays, "one array: one task's shards at one attempt number for one shard");
        assertEquals(List.of("slurm.0.j.merge.1", "slurm.0.j.align.s7.2", "slurm.1.j.align.s1.1", "slurm.0.j.align.s1001.1"),
                cluster.submitted, "alone: an unscattered task, the only shard at its attempt number or shard, one past MaxArraySize");
        assertEquals(7, submittedIds().size(), "each attempt reported submitted once");
        assertTrue(submittedIds().containsAll(List.of("100_0", "100_3", "100_5")), submittedIds().toString());
        reports.clear();
        worker.look(2);
        assertEquals(6, reports.get(0).getJobs().size(), "every element listed under its own name");
    }

    @Test
    void anArrayRedoneAfterTheWorkerDiedSubmitsOnlyItsMissingElementsAndOneUnansweredIsAdoptedByALook() {
        cluster.submitsThenTimesOut = true;
        submitTwoShardsOnAnArrayCluster();
        cluster.submitsThenTimesOut = false;
        assertEquals(List.of("100_0", "100_1"), submittedIds(), "taken though unanswered: found by a look and adopted");
        assertEquals(List.of(), cluster.submitted, "nothing submitted twice");
        reports.clear();
        worker.carryOut(List.of(submitShard(0, "align", 0, 1), submitShard(0, "align", 1, 1), submitShard(0, "align", 2, 1),
                submitShard(0, "align", 3, 1)), 2); // the batch redone, with more behind it
        assertEquals(List.of("slurm.0.j.align.s2.1", "slurm.0.j.align.s3.1"), cluster.arrays.get(1),
                "the elements already in the cluster are adopted, the rest go as a second array");
        assertEquals(List.of("100_0", "100_1", "101_2", "101_3"), submittedIds());
    }

    @Test
    void anArrayWithTheControllerDownIsReportedUnreachableElementByElement() {
        cluster.down = true;
        submitTwoShardsOnAnArrayCluster();
        assertEquals(List.of(ClusterReportKind.UNREACHABLE, ClusterReportKind.UNREACHABLE), reports.stream().map(ClusterReport::getKind).toList());
        assertEquals(List.of("j.align.s0.1", "j.align.s1.1"), reports.stream().map(ClusterReport::getAttemptId).toList());
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

    private static ClusterCommand withdraw(ClusterCommand submit) {
        return ClusterCommand.newBuilder(submit).setAction(ClusterAction.CANCEL).setClusterJobId(null).build(); // with what it withdraws, as the shard sends it
    }

    @Test
    void aWithdrawnSubmissionIsNotMadeAndOneMadeEarlierIsReportedForTheShardToCancel() {
        cluster.maxArrayIndex = 1000;
        worker.assigned(List.of(0));
        ClusterCommand early = submit(0, "early");
        worker.carryOut(List.of(early), 1);
        reports.clear();
        ClusterCommand s0 = submitShard(0, "align", 0, 1), s1 = submitShard(0, "align", 1, 1), s2 = submitShard(0, "align", 2, 1);
        worker.carryOut(List.of(s0, s1, s2, withdraw(s1), withdraw(early)), 2);
        assertEquals(List.of(List.of("slurm.0.j.align.s0.1", "slurm.0.j.align.s2.1")), cluster.arrays, "the withdrawn shard left out of its array");
        assertEquals(List.of("slurm.0.j.early.1"), cluster.submitted);
        assertTrue(cluster.cancelled.isEmpty(), "the shard cancels what it stopped, once it knows the id");
        List<String> said = reports.stream().map(r -> r.getKind() + " " + r.getAttemptId() + " " + r.getClusterJobId()).toList();
        assertEquals(List.of("SUBMITTED j.align.s0.1 101_0", "SUBMITTED j.align.s2.1 101_2", "WITHDRAWN j.align.s1.1 null",
                "SUBMITTED j.early.1 100"), said);
        reports.clear();
        cluster.down = true;
        worker.carryOut(List.of(withdraw(submit(0, "late"))), 3);
        assertEquals(ClusterReportKind.UNREACHABLE, reports.get(0).getKind(), "unanswered: the shard lets it go, a later look cancels any orphan");
    }

    @Test
    void aJobThatRanAndWasForgottenWhileNoWorkerHeldItsReportIsFoundByItsStartedMarkNotSubmittedAgain() {
        cluster.maxArrayIndex = 1000;
        worker.assigned(List.of(0));
        // a worker killed after sbatch: the jobs ran and ended, and the cluster forgot them (Grid Engine at once)
        startedMarks.put("j.once.1", "77");
        startedMarks.put("j.align.s1.1", "78_1");
        worker.carryOut(List.of(submit(0, "once"), submitShard(0, "align", 0, 1), submitShard(0, "align", 1, 1),
                submitShard(0, "align", 2, 1), withdraw(submit(0, "gone"))), 1);
        assertEquals(List.of(), cluster.submitted);
        assertEquals(List.of(List.of("slurm.0.j.align.s0.1", "slurm.0.j.align.s2.1")), cluster.arrays, "only the elements that never ran");
        startedMarks.put("j.gone.1", "79");
        worker.carryOut(List.of(withdraw(submit(0, "gone"))), 2);
        List<String> said = reports.stream().map(r -> r.getKind() + " " + r.getAttemptId() + " " + r.getClusterJobId()).toList();
        assertEquals(List.of("SUBMITTED j.once.1 77", "SUBMITTED j.align.s0.1 100_0", "SUBMITTED j.align.s1.1 78_1",
                "SUBMITTED j.align.s2.1 100_2", "WITHDRAWN j.gone.1 null", "SUBMITTED j.gone.1 79"), said,
                "each reported with the id its script wrote, for the shard to end it by its exit status");
    }
}
