package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.schema.ClusterCommand;
import io.flash.schema.ClusterReport;
import io.flash.schema.TaskDispatch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A batch shard and its cluster worker wired in memory, as the topics wire them: the shard's
 * commands go to the worker, the worker's reports back to the shard, in order, until both are quiet.
 */
public final class WiredShard {

    public final MemoryBatch memory;
    public final ClusterWorker worker;
    /** Every report the worker sent, in order. */
    public final List<ClusterReport> reports = new ArrayList<>();
    /** The cluster id each attempt's job script wrote as it started, by attempt. */
    public final Map<String, String> startedMarks = new HashMap<>();
    /** The ended marks job scripts left, by job name. */
    public final Set<String> endedMarks = new HashSet<>();
    private final List<ClusterReport> unread = new ArrayList<>();
    private final BatchSettings settings;
    private final Workspaces workspaces;
    public BatchShard shard;

    public WiredShard(BatchSettings settings, MemoryBatch memory, Cluster cluster, JobScripts scripts, Workspaces workspaces, long now) {
        this.settings = settings;
        this.memory = memory;
        this.workspaces = workspaces;
        this.worker = new ClusterWorker(settings.frameworkId(), cluster, new JobSpecs(scripts), new ClusterWorker.EndedMarks() {
            public Set<String> list() {
                return Set.copyOf(endedMarks);
            }

            public void remove(String jobName) {
                endedMarks.remove(jobName);
            }
        }, (jobId, attemptId) -> startedMarks.get(attemptId), r -> {
            reports.add(r);
            unread.add(r);
        });
        worker.assigned(List.of(0));
        this.shard = new BatchShard(settings, 0, memory, memory, workspaces, now);
    }

    /** The shard taken over from its stores (a restart or a rebalance): what it held in memory only is gone. */
    public void restartShard(long now) {
        shard = new BatchShard(settings, 0, memory, memory, workspaces, now);
    }

    public void dispatch(TaskDispatch dispatch, long now) {
        shard.onDispatch(dispatch, now);
        settle(now);
    }

    /** The shard's clock, then one look of the worker at the cluster. */
    public void tick(long now) {
        shard.tick(now);
        settle(now);
        worker.look(now);
        settle(now);
    }

    /** The worker reads and carries out the shard's first {@code count} commands as one batch. */
    public void workerTakes(int count, long now) {
        List<ClusterCommand> batch = new ArrayList<>(memory.commands.subList(0, Math.min(count, memory.commands.size())));
        memory.commands.subList(0, batch.size()).clear();
        worker.carryOut(batch, now);
    }

    /**
     * The worker carries out the first {@code count} commands and dies before its reports are
     * written and its position committed: the batch is read again by whoever takes the shard next.
     */
    public void workerDiesMidBatch(int count, long now) {
        List<ClusterCommand> batch = new ArrayList<>(memory.commands.subList(0, Math.min(count, memory.commands.size())));
        int reported = unread.size();
        worker.carryOut(batch, now);
        reports.subList(reports.size() - (unread.size() - reported), reports.size()).clear();
        unread.subList(reported, unread.size()).clear();
    }

    /** The shard reads the first {@code count} reports waiting for it. */
    public void shardReads(int count, long now) {
        List<ClusterReport> read = new ArrayList<>(unread.subList(0, Math.min(count, unread.size())));
        unread.subList(0, read.size()).clear();
        for (ClusterReport r : read) shard.onReport(r, now);
    }

    /** Reports written and not yet read by the shard. */
    public int unreadReports() {
        return unread.size();
    }

    /** Commands carried out and reports read until neither side has anything left to say. */
    public void settle(long now) {
        while (!memory.commands.isEmpty() || !unread.isEmpty()) {
            if (!memory.commands.isEmpty()) {
                List<ClusterCommand> batch = new ArrayList<>(memory.commands);
                memory.commands.clear();
                worker.carryOut(batch, now);
            }
            List<ClusterReport> read = new ArrayList<>(unread);
            unread.clear();
            for (ClusterReport r : read) shard.onReport(r, now);
        }
    }
}
