package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.common.framework.CatchUp;
import io.flash.common.framework.FrameworkEvents;
import io.flash.common.framework.FrameworkHeartbeats;
import io.flash.common.framework.HoldNotices;
import io.flash.schema.*;

import java.util.*;

/**
 * One shard of a batch-cluster framework: level 2 is the cluster's own scheduler. Each attempt the
 * dispatcher sends becomes one cluster job named after it ({@link ClusterNames}). The shard decides
 * and its cluster worker acts ({@link ClusterWorker}): the shard sends commands (submit, cancel,
 * forget) and reads reports (submitted, refused, unreachable, and each look at the cluster), so it
 * never waits on a cluster tool. Every look reconciles: a held attempt is matched with its job by
 * name and id; a job that ended becomes a task event, one the cluster forgot ends by the exit status
 * its script left; a queued or running job no attempt holds is cancelled. The cluster's partitions
 * become the shard's heartbeat; a slow controller empties its free room, a down one stops it
 * ({@link ControllerWatch}), so the dispatcher's DOWN and re-dispatch path takes over. No Kafka here: the topology adapts.
 */
public final class BatchShard {

    private static final String LOG_OFFSET = "logOffset/", LOG_SEQ = "logSeq/", PLACED = "placed/";
    /** Bounds on one log chunk: a chatty task cannot swamp the log topic or the shard's tick. */
    static final int LOG_BYTES_PER_TICK = 64 << 10, FINAL_LOG_BYTES = 256 << 10;

    private final BatchSettings settings;
    private final BatchStore store;
    private final BatchOutbox outbox;
    private final Workspaces workspaces;
    private final FrameworkEvents events;
    private final HoldNotices holds = new HoldNotices();
    private final CatchUp catchUp;
    private final int shard;
    private final ControllerWatch controller;
    private final JobEndings endings;
    private long heartbeatAt;

    public BatchShard(BatchSettings settings, int shard, BatchStore store, BatchOutbox outbox, Workspaces workspaces, long now) {
        this.settings = settings;
        this.shard = shard;
        this.store = store;
        this.outbox = outbox;
        this.workspaces = workspaces;
        this.events = new FrameworkEvents(settings.frameworkId(), shard);
        this.controller = new ControllerWatch(settings.downAfter());
        this.endings = new JobEndings(settings.frameworkId(), workspaces, events);
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
            submitWaiting(now);
        }
    }

    /**
     * Not sent yet: dropped (and reported, unless the dispatcher fenced it). In the cluster: cancelled
     * by its id. Sent but not known to be in the cluster: withdrawn (a cancel without an id). The
     * submission may still sit unread in the commands topic, its worker gone or slow; once the
     * dispatcher has fenced the attempt and run it again elsewhere, carrying it out would run the
     * task twice. The worker skips a submission withdrawn in the same batch and cancels by name one
     * already made, and says which ({@link #withdrawn}).
     */
    private void cancel(TaskReady ready, long now) {
        String id = ready.getAttemptId();
        TaskDispatch waiting = store.waiting().get(id);
        if (waiting != null) {
            store.waiting().delete(id);
            dropUnsubmitted(id, waiting, ready.getFence(), now);
        } else if (store.submitted().get(id) != null) {
            store.marks().put((ready.getFence() ? "fenced/" : "cancelled/") + id, now);
            String clusterId = store.clusterIds().get(id);
            command(ClusterAction.CANCEL, id, clusterId, clusterId == null ? store.submitted().get(id).getReady() : null, now);
        }
    }

    /**
     * Sends what waits to the worker, in attempt order (unless the shard is catching up on fences),
     * and places it: the placement and the submission commit together, so no job can be in the
     * cluster that the dispatcher still counts as unplaced and could move while this shard is
     * silent (a worker submits on its own thread, maybe in another instance, and its job may run
     * before this shard reads its report).
     */
    private void submitWaiting(long now) {
        if (catchUp.holding()) return;
        for (TaskDispatch d : store.waiting().values()) {
            String id = d.getReady().getAttemptId();
            store.waiting().delete(id);
            store.submitted().put(id, d);
            store.marks().put("sent/" + id, now);
            command(ClusterAction.SUBMIT, id, null, d.getReady(), now);
            if (store.marks().get(PLACED + id) == null) { // once: a submission the controller did not answer is sent again
                store.marks().put(PLACED + id, now);
                outbox.event(events.placed(d.getReady(), settings.frameworkId(), now));
            }
        }
    }

    private void command(ClusterAction action, String attemptId, String clusterId, TaskReady ready, long now) {
        outbox.command(ClusterCommand.newBuilder().setShard(shard).setAction(action).setAttemptId(attemptId)
                .setJobName(ClusterNames.of(settings.frameworkId(), shard, attemptId)).setReady(ready).setClusterJobId(clusterId)
                .setAt(now).build());
    }

    public void onReport(ClusterReport report, long now) {
        noticeReturn(now);
        switch (report.getKind()) {
            case SUBMITTED -> submitted(report.getAttemptId(), report.getClusterJobId(), now);
            case REFUSED -> refused(report.getAttemptId(), report.getReason(), now);
            case UNREACHABLE -> unreachable(report, now);
            case STATES -> looked(report, now);
            case WITHDRAWN -> withdrawn(report.getAttemptId(), now);
        }
    }

    /** The worker did not make a withdrawn submission, and no job under its name is in the cluster: the attempt ends here. */
    private void withdrawn(String id, long now) {
        TaskDispatch d = store.submitted().get(id);
        if (d == null || store.clusterIds().get(id) != null) return; // in the cluster after all: its job's end ends it
        store.submitted().delete(id);
        dropUnsubmitted(id, d, store.marks().get("fenced/" + id) != null, now);
    }

    /**
     * An attempt Flash stopped before it reached the cluster. Cancelled: reported so. Fenced: the
     * dispatcher reported it lost when it moved it, unless the shard had placed it meanwhile (the
     * two crossed): then the planner may have kept it, and hears its end here, from a named node,
     * which it does not take for the dispatcher's word.
     */
    private void dropUnsubmitted(String id, TaskDispatch d, boolean fenced, long now) {
        boolean placed = store.marks().get(PLACED + id) != null;
        forgetUnsubmitted(id);
        if (!fenced) {
            outbox.event(events.cancelledWhileQueued(d.getReady(), now));
        } else if (placed) {
            outbox.event(events.lost(d.getReady(), settings.frameworkId(), FailureClass.FRAMEWORK_LOST, "stopped before it reached the cluster: "
                    + "the dispatcher had moved it while " + settings.frameworkId() + " shard " + shard + " was silent", now));
        }
    }

    /** The attempt's job is in the cluster: the first id reported is kept, a second job under its name is cancelled. */
    private void submitted(String id, String clusterId, long now) {
        TaskDispatch held = store.submitted().get(id);
        if (held == null) held = store.waiting().get(id); // reported unreachable, yet it went through
        String kept = store.clusterIds().get(id);
        if (held == null || (kept != null && !kept.equals(clusterId))) { // no attempt holds this job: it must not run unseen
            command(ClusterAction.CANCEL, id, clusterId, null, now);
            return;
        }
        if (kept != null) return; // said again (a redelivered command, or a look that saw it first)
        store.waiting().delete(id);
        store.submitted().put(id, held);
        store.clusterIds().put(id, clusterId);
        store.marks().put("submitted/" + id, now);
        store.marks().delete("sent/" + id);
        holds.forget(id);
        if (stoppedByFlash(id)) command(ClusterAction.CANCEL, id, clusterId, null, now);
    }

    /** The cluster refused the job as made from the task: the user's to fix; the cluster itself is well. */
    private void refused(String id, String reason, long now) {
        TaskDispatch held = store.submitted().get(id);
        if (held == null || store.clusterIds().get(id) != null) return;
        TaskReady r = held.getReady();
        Cluster.Job refused = new Cluster.Job(null, id, Cluster.Phase.FAILED, "refused", null, null, null);
        TaskEvent failed = events.reported(r, null, endings.report(r, refused, AttemptState.FAILED, FailureClass.USER,
                "the cluster refused the job: " + reason, now), store.marks().get("fenced/" + id), null);
        release(id, failed, now);
    }

    /** The controller did not answer: a submission it did not take waits again; what waits is held, said once. */
    private void unreachable(ClusterReport report, long now) {
        controller.unanswered();
        String id = report.getAttemptId();
        if (id != null && store.submitted().get(id) != null && store.clusterIds().get(id) == null) {
            TaskDispatch d = store.submitted().get(id);
            store.submitted().delete(id);
            store.marks().delete("sent/" + id);
            if (stoppedByFlash(id)) { // cancelled before it reached the cluster
                dropUnsubmitted(id, d, store.marks().get("fenced/" + id) != null, now);
                return;
            }
            store.waiting().put(id, d);
        }
        String reason = settings.frameworkId() + " shard " + shard + ": the cluster's controller does not answer (" + report.getReason() + ")";
        for (TaskDispatch d : store.waiting().values()) {
            if (holds.due(d.getReady().getAttemptId(), reason)) outbox.event(events.held(d.getReady(), reason, now));
        }
    }

    /** One look at the cluster: reconcile every attempt held with the jobs seen, then heartbeat with what the cluster offers. */
    private void looked(ClusterReport look, long now) {
        Map<String, List<Cluster.Job>> byAttempt = new HashMap<>();
        for (ClusterJobState state : look.getJobs()) {
            String attempt = ClusterNames.attemptOf(settings.frameworkId(), state.getName());
            if (attempt != null) byAttempt.computeIfAbsent(attempt, a -> new ArrayList<>()).add(ClusterStates.job(state));
        }
        Set<String> ended = new HashSet<>();
        for (String name : look.getEnded()) ended.add(ClusterNames.attemptOf(settings.frameworkId(), name));
        byAttempt.forEach((attempt, jobs) -> reconcile(attempt, jobs, ended.contains(attempt), now));
        submitWaiting(now); // the cluster answers: what was held goes now
        for (TaskDispatch d : store.submitted().values()) {
            String id = d.getReady().getAttemptId();
            String clusterId = store.clusterIds().get(id);
            Cluster.Job job = clusterId == null ? null : byAttempt.getOrDefault(id, List.of()).stream()
                    .filter(j -> clusterId.equals(j.id())).findFirst().orElse(null);
            if (clusterId == null || (job == null && Objects.requireNonNullElse(store.marks().get("submitted/" + id), 0L) >= look.getLookedAt())) {
                continue; // not in the cluster yet, or submitted after this look began
            }
            if (job == null) {
                gone(d.getReady(), clusterId, now);
            } else if (!(ended.contains(id) && active(job) && endedByItsScript(d.getReady(), clusterId, job.node(), now))) {
                seen(d.getReady(), job, now);
            }
        }
        controller.answered(look.getPartitions().stream().map(ClusterStates::partition).filter(p -> p.nodesUp() > 0)
                .map(p -> new FrameworkHeartbeats.Offer(new Capacity(p.cpusTotal(), p.memoryTotal(), 0L, 0),
                        new Capacity(p.cpusIdle(), p.memoryFree(), 0L, 0), settings.diskType(), settings.network(), p.labels())).toList(), now);
        heartbeat(now);
    }

    /** What the cluster offers and what waits for it, to the dispatcher; nothing while the controller is down ({@link ControllerWatch}). */
    private void heartbeat(long now) {
        List<FrameworkHeartbeats.Offer> offers = controller.offers(now);
        if (offers == null) return;
        List<TaskDispatch> queued = new ArrayList<>();
        for (TaskDispatch d : store.submitted().values()) { // not running yet: sent, or queued in the cluster
            if (store.marks().get("started/" + d.getReady().getAttemptId()) == null) queued.add(d);
        }
        queued.addAll(store.waiting().values());
        outbox.heartbeat(FrameworkHeartbeats.of(settings.frameworkId(), shard, settings.acceptLimit(), offers, queued, now));
        heartbeatAt = now;
    }

    /**
     * The jobs under one attempt's name: one the shard sent but has no id for yet is adopted (its
     * report is on the way, or its worker died before sending it); every queued or running job no
     * attempt holds under that id is cancelled.
     */
    private void reconcile(String attempt, List<Cluster.Job> jobs, boolean ended, long now) {
        boolean held = store.submitted().get(attempt) != null || store.waiting().get(attempt) != null;
        if (held && store.clusterIds().get(attempt) == null) {
            jobs.stream().max(Comparator.comparing(j -> numeric(j.id()))).ifPresent(j -> submitted(attempt, j.id(), now));
        }
        String kept = store.clusterIds().get(attempt);
        for (Cluster.Job job : jobs) {
            // an ended script's job is finishing, not an orphan: the attempt was released by its exit status
            if (active(job) && !ended && !job.id().equals(kept)) command(ClusterAction.CANCEL, attempt, job.id(), null, now);
        }
    }

    private static boolean active(Cluster.Job job) {
        return job.phase() == Cluster.Phase.QUEUED || job.phase() == Cluster.Phase.RUNNING;
    }

    /** Later submissions have higher ids: Slurm's and Grid Engine's numbers, an array element's by its array's (123_4, 123.5). */
    private static long numeric(String id) {
        try {
            return Long.parseLong(id.split("[_.]", 2)[0]);
        } catch (NumberFormatException e) {
            return 0; // a pod's name: there is one per attempt
        }
    }

    /**
     * Ends the attempt by the exit status its script left, if it left one: for a job the cluster no
     * longer lists, or one whose script has ended though the cluster still lists it (the cluster's word follows).
     *
     * @return whether it ended
     */
    private boolean endedByItsScript(TaskReady r, String clusterId, String node, long now) {
        String id = r.getAttemptId();
        Integer exit = workspaces.exitStatus(r.getJobId(), id);
        if (exit == null) return false;
        streamLog(r, node, true, now);
        release(id, ended(r, new Cluster.Job(clusterId, id, exit == 0 ? Cluster.Phase.SUCCEEDED : Cluster.Phase.FAILED,
                "exited " + exit, exit, node, null), now), now);
        return true;
    }

    /** A job the cluster no longer lists: ended by the exit status its script left, or lost once forgotten long enough. */
    private void gone(TaskReady r, String clusterId, long now) {
        String id = r.getAttemptId();
        if (endedByItsScript(r, clusterId, null, now)) return;
        if (stoppedByFlash(id)) { // a cancelled pod is deleted: gone with its status (Kubernetes)
            release(id, ended(r, new Cluster.Job(clusterId, id, Cluster.Phase.CANCELLED, "deleted", null, null, null), now), now);
        } else {
            Long submittedAt = store.marks().get("submitted/" + id);
            if (submittedAt != null && now - submittedAt > settings.forgetAfter().toMillis()) {
                release(id, events.lost(r, null, FailureClass.NODE_LOST, "the cluster no longer knows job " + clusterId, now), now);
            }
        }
    }

    private void seen(TaskReady r, Cluster.Job job, long now) {
        String id = r.getAttemptId();
        boolean stopping = stoppedByFlash(id);
        switch (job.phase()) {
            case QUEUED -> {
                if (stopping) command(ClusterAction.CANCEL, id, job.id(), null, now); // asked again until it ends
            }
            case RUNNING -> {
                if (stopping) command(ClusterAction.CANCEL, id, job.id(), null, now);
                if (store.marks().get("started/" + id) == null) {
                    store.marks().put("started/" + id, now);
                    TaskEvent started = events.reported(r, job.node(), endings.report(r, job, AttemptState.STARTED, null, null, now), null, null);
                    started.setCostPerHour(job.costPerHour()); // the node is known once it runs, and with it the price
                    outbox.event(started);
                }
                streamLog(r, job.node(), false, now);
            }
            default -> {
                streamLog(r, job.node(), true, now);
                release(id, ended(r, job, now), now);
            }
        }
    }

    /** Flash asked the cluster to stop it: a cancel or a fence. */
    private boolean stoppedByFlash(String id) {
        return store.marks().get("cancelled/" + id) != null || store.marks().get("fenced/" + id) != null;
    }

    /** How a finished job ended, in the planner's terms. */
    private TaskEvent ended(TaskReady r, Cluster.Job job, long now) {
        return endings.ended(r, job, store.marks().get("fenced/" + r.getAttemptId()), stoppedByFlash(r.getAttemptId()), now);
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

    private void release(String id, TaskEvent end, long now) {
        String clusterId = store.clusterIds().get(id);
        // a cluster that keeps finished jobs until told (Kubernetes) lets this one go; Slurm and Grid Engine purge their own
        if (clusterId != null) command(ClusterAction.FORGET, id, clusterId, null, now);
        store.submitted().delete(id);
        store.clusterIds().delete(id);
        holds.forget(id);
        for (String mark : List.of("sent/", "submitted/", "started/", "cancelled/", "fenced/", PLACED, LOG_OFFSET, LOG_SEQ)) {
            store.marks().delete(mark + id);
        }
        outbox.event(end);
    }

    /** What the shard kept of an attempt that leaves it before reaching the cluster. */
    private void forgetUnsubmitted(String id) {
        for (String mark : List.of("sent/", "cancelled/", "fenced/", PLACED)) store.marks().delete(mark + id);
        holds.forget(id);
    }

    /** The shard's clock between looks: a shard back from a long absence reads the fences before it sends anything. */
    public void tick(long now) {
        noticeAbsence(now);
        // a look heartbeats every tick; none for a tick and a half: the worker is busy, or the controller slow
        if (now - heartbeatAt > settings.tick().toMillis() * 3 / 2) heartbeat(now);
        if (controller.down(now)) giveBack(now);
    }

    /**
     * With the controller down, what was placed here and waits for it to answer (a submission it
     * left unanswered) goes back to the planner as lost with the framework, to run elsewhere: the
     * dispatcher moves only what was never placed. If the unanswered submission had gone through,
     * the job is found unheld by a look once the controller is back, and cancelled. A task pinned to
     * this framework has nowhere else to go: it waits here for the controller, spending no retry.
     */
    private void giveBack(long now) {
        for (TaskDispatch d : store.waiting().values()) {
            String id = d.getReady().getAttemptId();
            if (store.marks().get(PLACED + id) == null) continue; // never placed: the dispatcher's to move
            if (settings.frameworkId().equals(d.getReady().getTask().getFramework())) continue;
            store.waiting().delete(id);
            forgetUnsubmitted(id);
            outbox.event(events.lost(d.getReady(), settings.frameworkId(), FailureClass.FRAMEWORK_LOST, settings.frameworkId()
                    + "'s controller has not answered for " + settings.downAfter().toSeconds() + " s", now));
        }
    }

    private void noticeReturn(long now) {
        if (catchUp.endsAnAbsence(now)) noticeAbsence(now);
    }

    private void noticeAbsence(long now) {
        if (catchUp.endsAnAbsence(now)) outbox.marker(catchUp.markerWritten(now));
        catchUp.ticked(now);
    }
}
