package io.flash.dispatcher.core;

import io.flash.common.events.HoldReasons;
import io.flash.dispatcher.core.selection.Decision;
import io.flash.dispatcher.core.selection.FrameworkSelector;
import io.flash.dispatcher.core.selection.Requirement;
import io.flash.dispatcher.core.selection.Reservations;
import io.flash.dispatcher.core.selection.SilenceWatch;
import io.flash.schema.*;

import java.util.*;

/**
 * Level 1's decisions, over a store port and an outbox port and nothing of Kafka: routes ready
 * attempts (and cancels) to framework shards, holds what fits nowhere and retries it each round,
 * and moves attempts stranded on a DOWN shard — the old dispatch is fenced with a cancel on its
 * shard's topic (a framework that comes back drops or kills it) and the attempt is reported
 * FRAMEWORK_LOST, so the planner retries it as a new attempt, which the old one can never be
 * mistaken for (docs/scheduling.md).
 */
public final class Dispatcher {

    /** Placed is enough: from then on a node holds the attempt, and moving it could run it twice. */
    private static final EnumSet<TaskEventType> LEAVES_INFLIGHT = EnumSet.of(TaskEventType.PLACED, TaskEventType.STARTED,
            TaskEventType.SUCCEEDED, TaskEventType.FAILED, TaskEventType.CANCELLED, TaskEventType.LOST);

    private final FrameworkSelector selector;
    private final DispatchStore store;
    private final DispatchOutbox out;
    private final long redispatchGraceMillis;
    /** Sent to each shard and perhaps not in its heartbeat yet; in memory, rebuilt by new heartbeats after a restart. */
    private final Reservations reservations = new Reservations(30_000);
    private final SilenceWatch silence;
    /** The held store grouped for the retry round; filled from the store at the first round. */
    private final HeldQueue held = new HeldQueue();
    private boolean heldLoaded;
    private final InflightIds inflight;

    public Dispatcher(FrameworkSelector selector, DispatchStore store, DispatchOutbox out, long redispatchGraceMillis,
                      long blindAfterMillis) {
        this.selector = selector;
        this.store = store;
        this.out = out;
        this.redispatchGraceMillis = redispatchGraceMillis;
        this.silence = new SilenceWatch(blindAfterMillis);
        this.inflight = new InflightIds(store);
    }

    public void onReady(TaskReady ready, long now) {
        onReady(List.of(ready), now);
    }

    /**
     * Ready attempts (and cancels) that arrived together: decided over one read of the shards'
     * heartbeats, not one per attempt (a planner's envelope carries hundreds; what was sent to a
     * shard since its heartbeat is counted by the reservations either way).
     */
    public void onReady(List<TaskReady> readies, long now) {
        List<FrameworkHeartbeat> shards = null;
        for (TaskReady ready : readies) {
            if (ready.getCancel()) {
                cancel(ready, now);
                continue;
            }
            if (shards == null) shards = store.shards();
            decide(ready, null, shards, now);
        }
    }

    public void onEvent(TaskEvent event) {
        // The shard's own report (not a DISPATCHED an older dispatcher wrote): it has read the dispatch.
        if (event.getType() != TaskEventType.DISPATCHED && event.getFrameworkId() != null) {
            reservations.acknowledged(event.getAttemptId(), event.getAt());
        }
        if (LEAVES_INFLIGHT.contains(event.getType())) inflight.landed(event.getAttemptId());
    }

    /** The periodic round: silence judged, stranded attempts moved, held ones tried again. */
    public void round(long now) {
        List<FrameworkHeartbeat> shards = store.shards(); // one read per round, not one per held attempt
        silence.observe(shards, now);
        redispatchFromSilentShards(shards, now);
        retryHeld(shards, now);
    }

    /** Held here: settled here. Dispatched: passed to its framework shard, or to all when unknown. */
    private void cancel(TaskReady request, long now) {
        if (store.held(request.getAttemptId()) != null) {
            release(request.getAttemptId());
            emit(request, TaskEventType.CANCELLED, null, null, FailureClass.CANCELLED, "cancelled before it was dispatched", now);
            return;
        }
        TaskDispatch sent = store.inflight(request.getAttemptId());
        inflight.landed(request.getAttemptId());
        String framework = sent != null ? sent.getFrameworkId() : request.getCancelFramework();
        Integer shard = sent != null ? Integer.valueOf(sent.getShard()) : request.getCancelShard();
        for (FrameworkHeartbeat hb : store.shards()) {
            if (framework != null && !(hb.getFrameworkId().equals(framework) && Objects.equals(hb.getShard(), shard))) {
                continue;
            }
            dispatch(request, hb.getFrameworkId(), hb.getShard(), now);
        }
    }

    /**
     * A shard silent for longer than the heartbeat timeout gets nothing new (the selector skips it);
     * once it has been silent for the timeout and the further grace in time the dispatcher could
     * see ({@link SilenceWatch}), what it was sent and has not placed goes elsewhere.
     */
    private void redispatchFromSilentShards(List<FrameworkHeartbeat> shards, long now) {
        long abandonAfter = selector.heartbeatTimeoutMillis() + redispatchGraceMillis;
        Map<String, Long> abandoned = new HashMap<>();
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            if (silence.silentFor(key) > abandonAfter) abandoned.put(key, silence.silentFor(key));
        }
        if (abandoned.isEmpty()) return;
        List<TaskDispatch> stranded = store.allInflight().stream()
                .filter(d -> abandoned.containsKey(FrameworkSelector.key(d.getFrameworkId(), d.getShard()))).toList();
        for (TaskDispatch old : stranded) {
            TaskReady ready = old.getReady();
            inflight.landed(ready.getAttemptId());
            out.counted("moved-from-silent-framework");
            TaskReady fence = TaskReady.newBuilder(ready).setCancel(true).setFence(true)
                    .setCancelFramework(old.getFrameworkId()).setCancelShard(old.getShard()).build();
            dispatch(fence, old.getFrameworkId(), old.getShard(), now);
            long silentSeconds = abandoned.get(FrameworkSelector.key(old.getFrameworkId(), old.getShard())) / 1000;
            emit(ready, TaskEventType.LOST, old.getFrameworkId(), old.getShard(), FailureClass.FRAMEWORK_LOST,
                    old.getFrameworkId() + " shard " + old.getShard() + " sent no heartbeat for " + silentSeconds
                            + " s before placing it; its dispatch there is cancelled", now);
        }
    }

    /**
     * Each group of equal held attempts ({@link HeldQueue}) is decided for its first member, in the
     * leaving order across groups; a group whose member is held again waits for the next round
     * (its other members are told only if the reason changed in words), one whose member left goes
     * on with its next. A round costs a decision per group plus one per attempt that leaves.
     */
    private void retryHeld(List<FrameworkHeartbeat> shards, long now) {
        if (!selector.anyQueueRoom(shards, currentReservations(shards, now), now)) return; // nothing could leave
        if (!heldLoaded) {
            store.heldTasks().forEach(held::add);
            heldLoaded = true;
        }
        PriorityQueue<HeldQueue.Entry> heads = held.heads();
        while (!heads.isEmpty()) {
            HeldQueue.Entry head = heads.poll();
            HeldTask task = store.held(head.attemptId());
            if (task == null) { // not in the store: nothing to decide (the store is the truth)
                HeldQueue.Entry next = held.after(head);
                held.remove(head.attemptId());
                if (next != null) heads.add(next);
                continue;
            }
            Decision decision = decide(task.getReady(), task, shards, now);
            if (decision instanceof Decision.Hold hold) {
                tellTheRest(head.group(), hold, now);
                continue;
            }
            HeldQueue.Entry next = held.after(head);
            if (next != null) heads.add(next);
        }
    }

    /** The group's other members are held for the same reason; those told another one in words hear it. */
    private void tellTheRest(Requirement group, Decision.Hold hold, long now) {
        if (held.allTold(group, hold.reason())) return;
        for (String attemptId : held.notTold(group, hold.reason())) {
            HeldTask other = store.held(attemptId);
            if (other != null) settle(other.getReady(), other, hold, now);
        }
    }

    private Decision decide(TaskReady ready, HeldTask previouslyHeld, List<FrameworkHeartbeat> shards, long now) {
        Decision decision = selector.choose(ready, shards, currentReservations(shards, now), now);
        settle(ready, previouslyHeld, decision, now);
        return decision;
    }

    private void settle(TaskReady ready, HeldTask previouslyHeld, Decision decision, long now) {
        if (decision instanceof Decision.Dispatch d) {
            if (previouslyHeld != null) release(ready.getAttemptId());
            reservations.sent(FrameworkSelector.key(d.frameworkId(), d.shard()), ready.getAttemptId(), ready.getTask().getResources(), now);
            store.sent(ready.getAttemptId(), dispatch(ready, d.frameworkId(), d.shard(), now));
            inflight.sent(ready.getAttemptId());
            // No DISPATCHED event: the shard's first report (PLACED or HELD) names the framework and
            // shard, and clears a hold's reason; until then the in-flight record routes a cancel.
            out.counted("dispatched");
        } else if (decision instanceof Decision.Hold h) {
            if (previouslyHeld == null || !HoldReasons.sameInWords(previouslyHeld.getReason(), h.reason())) {
                hold(ready.getAttemptId(), HeldTask.newBuilder().setReady(ready).setReason(h.reason())
                        .setHeldSince(previouslyHeld == null ? now : previouslyHeld.getHeldSince()).build());
                emit(ready, TaskEventType.HELD, null, null, null, h.reason(), now);
                out.counted("held");
            }
        } else if (decision instanceof Decision.Fail f) {
            if (previouslyHeld != null) release(ready.getAttemptId());
            out.counted("unschedulable");
            emit(ready, TaskEventType.FAILED, null, null, FailureClass.UNSCHEDULABLE, "no framework can ever run it: " + f.reason(), now);
        }
    }

    private void hold(String attemptId, HeldTask task) {
        store.hold(attemptId, task);
        held.add(attemptId, task);
    }

    private void release(String attemptId) {
        store.release(attemptId);
        held.remove(attemptId);
    }

    private TaskDispatch dispatch(TaskReady ready, String frameworkId, int shard, long now) {
        TaskDispatch dispatch = TaskDispatch.newBuilder()
                .setFrameworkId(frameworkId).setShard(shard).setReady(ready).setDispatchedAt(now).build();
        out.dispatch(dispatch);
        return dispatch;
    }

    private Map<String, FrameworkSelector.Reservation> currentReservations(List<FrameworkHeartbeat> shards, long now) {
        Map<String, FrameworkSelector.Reservation> current = new HashMap<>();
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            current.put(key, reservations.since(key, hb.getSentAt(), now));
        }
        return current;
    }

    private void emit(TaskReady ready, TaskEventType type, String frameworkId, Integer shard, FailureClass failureClass,
                      String reason, long now) {
        out.event(TaskEvent.newBuilder()
                .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                .setType(type).setFrameworkId(frameworkId).setShard(shard).setFailureClass(failureClass).setReason(reason).setAt(now)
                .build());
    }
}
