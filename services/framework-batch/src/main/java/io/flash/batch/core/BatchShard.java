package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.common.framework.CatchUp;
import io.flash.common.framework.FrameworkEvents;
import io.flash.common.framework.FrameworkHeartbeats;
import io.flash.common.framework.HoldNotices;
import io.flash.schema.*;

import java.util.*;

/**
 * One shard of a batch-cluster framework: level 2 is the cluster's own scheduler. Each attempt the
 * dispatcher sends becomes one cluster job named after the attempt (a restarted shard finds the
 * jobs it submitted before it could remember them, so none is submitted twice); the cluster's
 * states become task events; cancels and fences become cancellations; the cluster's partitions
 * become the shard's heartbeat — and a controller that does not answer stops it, so the
 * dispatcher's DOWN and re-dispatch path takes over. No Kafka here: the topology adapts.
 */
public final class BatchShard {

    private static final String LOG_OFFSET = "logOffset/", LOG_SEQ = "logSeq/";
    /** Bounds on one log chunk: a chatty task cannot swamp the log topic or the shard's tick. */
    static final int LOG_BYTES_PER_TICK = 64 << 10, FINAL_LOG_BYTES = 256 << 10;

    private final BatchSettings settings;
    private final BatchStore store;
    private final BatchOutbox outbox;
    private final Cluster cluster;
    private final JobScripts scripts;
    private final Workspaces workspaces;
    private final FrameworkEvents events;
    private final HoldNotices holds = new HoldNotices();
    private final CatchUp catchUp;
    private final int shard;

    public BatchShard(BatchSettings settings, int shard, BatchStore store, BatchOutbox outbox, Cluster cluster, JobScripts scripts,
                      Workspaces workspaces, long now) {
        this.settings = settings;
        this.shard = shard;
        this.store = store;
        this.outbox = outbox;
        this.cluster = cluster;
        this.scripts = scripts;
        this.workspaces = workspaces;
        this.events = new FrameworkEvents(settings.frameworkId(), shard);
        this.catchUp = new CatchUp(settings.fenceAfterAbsence().toMillis(), shard, new CatchUp.Persisted() {
            public Long lastTickAt() { return store.marks().get("lastTickAt"); }

            public void ticked(long at) { store.marks().put("lastTickAt", at); }

            public Long markerAt() { return store.marks().get("markerAt"); }

            public void markerAt(Long at) {
                if (at == null) store.marks().delete("markerAt");
                else store.marks().put("markerAt", at);
            }
        }, now);
    }

    public void onMarker(String key, long now) {
        noticeReturn(now);
        if (CatchUp.isMarker(key) && catchUp.markerRead(key)) submitWaiting(now);
    }

    public void onDispatch(TaskDispatch dispatch, long now) {
        noticeReturn(now);
        TaskReady ready = dispatch.getReady();
        String id = ready.getAttemptId();
        if (ready.getCancel()) {
            cancel(ready, now);
        } else if (store.waiting().get(id) == null && store.submitted().get(id) == null) { // else a redelivery
            store.waiting().put(id, dispatch);
            if (!catchUp.holding()) submitWaiting(now);
        }
    }

    /** Not submitted yet: dropped (and reported, unless the dispatcher fenced it). Submitted: cancelled in the cluster. */
    private void cancel(TaskReady ready, long now) {
        String id = ready.getAttemptId();
        if (store.waiting().get(id) != null) {
            store.waiting().delete(id);
            holds.forget(id);
            if (!ready.getFence()) outbox.event(events.cancelledWhileQueued(ready, now));
        } else if (store.submitted().get(id) != null) {
            store.marks().put((ready.getFence() ? "fenced/" : "cancelled/") + id, now);
            tryCancel(id);
        }
    }

    private void tryCancel(String attemptId) {
        try {
            cluster.cancel(store.clusterIds().get(attemptId));
        } catch (Cluster.Unreachable e) {
            // asked again every tick until the cluster reports the job ended
        }
    }

    /** On a dispatch or the catch-up marker: submits what waits (one look at the cluster for their names first). */
    private void submitWaiting(long now) {
        List<TaskDispatch> waiting = store.waiting().values();
        if (waiting.isEmpty() || catchUp.holding()) return;
        try {
            submitWaiting(waiting, cluster.jobs(names(waiting)), now);
        } catch (Cluster.Unreachable e) {
            holdWaiting(e, now);
        }
    }

    /** Submits what waits, in attempt order; a job already in the cluster under the attempt's name is adopted, not submitted again. */
    private void submitWaiting(List<TaskDispatch> waiting, Map<String, Cluster.Job> known, long now) {
        for (TaskDispatch d : waiting) {
            TaskReady r = d.getReady();
            Cluster.Job existing = known.get(r.getAttemptId());
            String jobId;
            try {
                jobId = existing != null ? existing.id() : cluster.submit(spec(r));
            } catch (Cluster.Rejected e) { // made from the task, so the user's to fix; the cluster itself is well
                store.waiting().delete(r.getAttemptId());
                holds.forget(r.getAttemptId());
                Cluster.Job refused = new Cluster.Job(null, r.getAttemptId(), Cluster.Phase.FAILED, "refused", null, null, null);
                outbox.event(events.reported(r, null, report(r, refused, AttemptState.FAILED, FailureClass.USER,
                        "the cluster refused the job: " + e.getMessage(), now), null, null));
                continue;
            }
            store.waiting().delete(r.getAttemptId());
            store.submitted().put(r.getAttemptId(), d);
            store.clusterIds().put(r.getAttemptId(), jobId);
            store.marks().put("submitted/" + r.getAttemptId(), now);
            holds.forget(r.getAttemptId());
            outbox.event(events.placed(r, settings.frameworkId(), now));
        }
    }

    private void holdWaiting(Cluster.Unreachable e, long now) {
        for (TaskDispatch d : store.waiting().values()) {
            String reason = settings.frameworkId() + " shard " + shard + ": the cluster's controller does not answer ("
                    + e.getMessage() + ")";
            if (holds.due(d.getReady().getAttemptId(), reason)) outbox.event(events.held(d.getReady(), reason, now));
        }
    }

    private static List<String> names(Collection<TaskDispatch> dispatches) {
        return dispatches.stream().map(d -> d.getReady().getAttemptId()).toList();
    }

    private Cluster.JobSpec spec(TaskReady r) {
        TaskDefinition task = r.getTask();
        // A Slurm partition or a Grid Engine queue, named by the task's node labels.
        Map<String, String> labels = task.getNodeLabels() == null ? Map.of() : task.getNodeLabels();
        String partition = labels.getOrDefault("partition", labels.get("queue"));
        return new Cluster.JobSpec(r.getAttemptId(), task.getResources().getCpu(), task.getResources().getMemoryBytes(),
                JobScripts.clusterTimeLimitSeconds(task.getTimeoutSeconds()), partition, scripts.script(r), scripts.outputFile(r.getJobId(), r.getAttemptId()).toString(),
                scripts.container(r));
    }

    /** The shard's clock: submit, read the cluster's states, heartbeat — or, with the controller silent, nothing. */
    public void tick(long now) {
        noticeAbsence(now);
        List<TaskDispatch> waiting = store.waiting().values();
        List<String> names = new ArrayList<>(names(waiting));
        names.addAll(names(store.submitted().values()));
        Map<String, Cluster.Job> jobs;
        List<Cluster.Partition> partitions;
        try {
            jobs = cluster.jobs(names); // one look serves both: what waits is adopted or submitted, the rest is read
            if (!waiting.isEmpty() && !catchUp.holding()) submitWaiting(waiting, jobs, now);
            partitions = cluster.partitions();
        } catch (Cluster.Unreachable e) {
            if (!catchUp.holding()) holdWaiting(e, now);
            return; // silence: the dispatcher judges the framework DOWN and moves what it has not placed
        }
        List<TaskDispatch> queued = new ArrayList<>(store.waiting().values());
        for (TaskDispatch d : store.submitted().values()) {
            String id = d.getReady().getAttemptId();
            Cluster.Job job = jobs.get(id);
            if (job == null && Objects.equals(store.marks().get("submitted/" + id), now)) { // submitted just now
                queued.add(d);
                continue;
            }
            if (job == null) { // forgotten by the cluster already (a short MinJobAge): the job script left its exit status
                Integer exit = workspaces.exitStatus(d.getReady().getJobId(), id);
                if (exit != null) {
                    streamLog(d.getReady(), null, true, now);
                    release(id, ended(d.getReady(), new Cluster.Job(store.clusterIds().get(id), id,
                            exit == 0 ? Cluster.Phase.SUCCEEDED : Cluster.Phase.FAILED, "exited " + exit, exit, null, null), now));
                    continue;
                }
                if (stoppedByFlash(id)) { // a cancelled pod is deleted: gone with its status (Kubernetes)
                    release(id, ended(d.getReady(), new Cluster.Job(store.clusterIds().get(id), id, Cluster.Phase.CANCELLED,
                            "deleted", null, null, null), now));
                    continue;
                }
                Long submittedAt = store.marks().get("submitted/" + id);
                if (submittedAt != null && now - submittedAt > settings.forgetAfter().toMillis()) {
                    release(id, events.lost(d.getReady(), null, FailureClass.NODE_LOST, "the cluster no longer knows job "
                            + store.clusterIds().get(id), now));
                }
                continue;
            }
            boolean stopping = stoppedByFlash(id);
            switch (job.phase()) {
                case QUEUED -> {
                    queued.add(d);
                    if (stopping) tryCancel(id);
                }
                case RUNNING -> {
                    if (stopping) tryCancel(id);
                    if (store.marks().get("started/" + id) == null) {
                        store.marks().put("started/" + id, now);
                        TaskEvent started = events.reported(d.getReady(), job.node(), report(d.getReady(), job, AttemptState.STARTED, null, null, now),
                                null, null);
                        started.setCostPerHour(job.costPerHour()); // the node is known once it runs, and with it the price
                        outbox.event(started);
                    }
                    streamLog(d.getReady(), job.node(), false, now);
                }
                default -> {
                    streamLog(d.getReady(), job.node(), true, now);
                    release(id, ended(d.getReady(), job, now));
                }
            }
        }
        List<FrameworkHeartbeats.Offer> offers = partitions.stream().filter(p -> p.nodesUp() > 0).map(p -> new FrameworkHeartbeats.Offer(
                new Capacity(p.cpusTotal(), p.memoryTotal(), 0L, 0), new Capacity(p.cpusIdle(), p.memoryFree(), 0L, 0),
                settings.diskType(), settings.network(), p.labels())).toList();
        outbox.heartbeat(FrameworkHeartbeats.of(settings.frameworkId(), shard, settings.acceptLimit(), offers, queued, now));
    }

    /** Flash asked the cluster to stop it: a cancel or a fence. */
    private boolean stoppedByFlash(String id) {
        return store.marks().get("cancelled/" + id) != null || store.marks().get("fenced/" + id) != null;
    }

    /** How a finished job ended, in the planner's terms. */
    private TaskEvent ended(TaskReady r, Cluster.Job job, long now) {
        String id = r.getAttemptId();
        Long fencedAt = store.marks().get("fenced/" + id);
        boolean cancelledByFlash = stoppedByFlash(id);
        if (job.phase() == Cluster.Phase.NODE_LOST) {
            return events.lost(r, job.node(), FailureClass.NODE_LOST, "the cluster lost its node (" + job.state() + ")", now);
        }
        if (job.phase() == Cluster.Phase.SPOT_LOST) { // the platform's loss, free to the user up to maxSpotAttempts
            return events.lost(r, job.node(), FailureClass.SPOT_RECLAIMED, "its spot node was reclaimed (" + job.state() + ")", now);
        }
        AttemptEvent report = switch (job.phase()) {
            // A cancelled job never reports success (a fenced one's success stands: its outputs are written).
            case SUCCEEDED -> cancelledByFlash && fencedAt == null
                    ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED, "cancelled (it had just finished)", now)
                    : succeeded(r, job, now);
            case OUT_OF_MEMORY -> report(r, job, AttemptState.FAILED, FailureClass.OOM_KILLED, "the cluster killed it for its memory", now);
            case TIMEOUT -> report(r, job, AttemptState.FAILED, FailureClass.TIMEOUT, "the cluster ended it at its time limit", now);
            case PREEMPTED -> report(r, job, AttemptState.FAILED, FailureClass.PREEMPTED, "preempted by the cluster", now);
            case CANCELLED -> cancelledByFlash ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED, "cancelled", now)
                    : report(r, job, AttemptState.FAILED, FailureClass.INFRASTRUCTURE,
                    "cancelled in the cluster by someone other than Flash (" + job.state() + ")", now);
            // A cluster that forgot the cancelled job before a poll saw it (Slurm's MinJobAge) leaves only the
            // script's exit status, 143 from the SIGTERM: the cancel's doing, not the program's failure.
            default -> cancelledByFlash ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED,
                    "cancelled (ended " + job.state() + ")", now)
                    : workspaces.timedOut(r.getJobId(), id)
                    ? report(r, job, AttemptState.FAILED, FailureClass.TIMEOUT, "ran past its timeout of " + r.getTask().getTimeoutSeconds() + " s", now)
                    : workspaces.oomKilled(r.getJobId(), id)
                    ? report(r, job, AttemptState.FAILED, FailureClass.OOM_KILLED, "the kernel killed it for exceeding its memory limit", now)
                    : report(r, job, AttemptState.FAILED, FailureClass.USER, job.exitCode() == null ? job.reason() : null, now);
        };
        return events.reported(r, job.node(), report, fencedAt, null);
    }

    /** A success with its declared outputs listed; one that left a declared output out is the program's failure, as on Flash's nodes. */
    private AttemptEvent succeeded(TaskReady r, Cluster.Job job, long now) {
        Workspaces.Outputs outputs = workspaces.outputs(r.getJobId(), r.getTask().getOutputs());
        if (!outputs.missing().isEmpty()) {
            return report(r, job, AttemptState.FAILED, FailureClass.USER, "exited 0 but left no " + String.join(", ", outputs.missing())
                    + " in the job workspace (declared in outputs)", now);
        }
        AttemptEvent ok = report(r, job, AttemptState.SUCCEEDED, null, null, now);
        ok.setOutputs(outputs.found());
        return ok;
    }

    private AttemptEvent report(TaskReady r, Cluster.Job job, AttemptState state, FailureClass cause, String reason, long now) {
        return AttemptEvent.newBuilder().setNodeId(job.node() == null ? settings.frameworkId() : job.node()).setJobId(r.getJobId())
                .setTaskId(r.getTaskId()).setAttemptId(r.getAttemptId()).setState(state)
                .setExitCode(state == AttemptState.STARTED ? null : job.exitCode()).setFailureClass(cause).setReason(reason)
                .setStdoutTail(state == AttemptState.STARTED ? null : workspaces.tail(r.getJobId(), r.getAttemptId())).setAt(now).build();
    }

    /**
     * What the attempt wrote since the last tick, as whole lines, to the log topic; once it has
     * ended, the rest (past the final chunk's bound only counted: the file in the workspace has all).
     */
    private void streamLog(TaskReady r, String node, boolean last, long now) {
        String id = r.getAttemptId();
        long offset = Objects.requireNonNullElse(store.marks().get(LOG_OFFSET + id), 0L);
        long seq = Objects.requireNonNullElse(store.marks().get(LOG_SEQ + id), 0L);
        Workspaces.Output out = workspaces.output(r.getJobId(), id, offset, last ? FINAL_LOG_BYTES : LOG_BYTES_PER_TICK, last);
        if (out.text().isEmpty() && !last) return;
        outbox.log(LogChunk.newBuilder().setAttemptId(id).setJobId(r.getJobId()).setTaskId(r.getTaskId())
                .setNodeId(node != null ? node : settings.frameworkId()).setSeq(seq).setText(out.text()).setLast(last)
                .setDroppedBytes(out.skippedBytes()).setAt(now).build());
        store.marks().put(LOG_OFFSET + id, out.next());
        store.marks().put(LOG_SEQ + id, seq + 1);
    }

    private void release(String id, TaskEvent end) {
        String clusterId = store.clusterIds().get(id);
        try {
            if (clusterId != null) cluster.forget(clusterId);
        } catch (Cluster.Unreachable e) {
            // a finished job the cluster keeps holds no resources; docs/frameworks.md says how to clear one
        }
        store.submitted().delete(id);
        store.clusterIds().delete(id);
        for (String mark : List.of("submitted/", "started/", "cancelled/", "fenced/", LOG_OFFSET, LOG_SEQ)) store.marks().delete(mark + id);
        outbox.event(end);
    }

    private void noticeReturn(long now) {
        if (catchUp.endsAnAbsence(now)) noticeAbsence(now);
    }

    private void noticeAbsence(long now) {
        if (catchUp.endsAnAbsence(now)) outbox.marker(catchUp.markerWritten(now));
        catchUp.ticked(now);
    }
}
