package io.flash.ecs.core;

import io.flash.common.cost.Costs;
import io.flash.common.events.HoldReasons;
import io.flash.common.framework.CatchUp;
import io.flash.common.framework.FrameworkEvents;
import io.flash.common.framework.FrameworkHeartbeats;
import io.flash.common.framework.HoldNotices;
import io.flash.common.resources.Resources;
import io.flash.ecs.core.placement.BinPacker;
import io.flash.ecs.core.placement.Requirement;
import io.flash.ecs.core.preemption.PreemptionBudget;
import io.flash.ecs.core.preemption.Preemptor;
import io.flash.ecs.core.queue.FairShare;
import io.flash.ecs.core.queue.Holdings;
import io.flash.ecs.core.queue.WaitingLines;
import io.flash.schema.*;
import java.util.*;

/**
 * One scheduling shard's decisions, with no Kafka in sight (the topology's processor adapts): keeps
 * its nodes, queues dispatched attempts, places them (fair share, quotas, best fit), turns
 * executor reports into task events, declares silent nodes LOST (all their attempts in one batch),
 * preempts lower-priority attempts for higher-priority ones that fit nowhere (rate-limited), honours
 * the dispatcher's cancels and fences, and heartbeats the shard's capacity. It keeps what it knows
 * in a {@link ShardStore} and publishes through a {@link ShardOutbox}; time comes with each call.
 */
public final class ShardScheduler {

    private final ShardSettings settings;
    private final BinPacker packer;
    private final Preemptor preemptor = new Preemptor();
    private final PreemptionBudget preemptionBudget;
    private final ShardOutbox outbox;
    private final ShardState state;
    private final NodeLiveness liveness;
    private final int shard;
    private final CatchUp catchUp;
    private final HoldNotices holdNotices = new HoldNotices();
    private final FrameworkEvents events;
    /** When each node's record was last written for its heartbeat alone (not for a change). */
    private final Map<String, Long> lastPersisted = new HashMap<>();
    /**
     * True from the end of a full pass until room may have appeared (an attempt ended, a node came
     * or grew): meanwhile every queued attempt is known not to fit, so a newly queued one is tried
     * alone instead of with the whole queue — equivalent, since it is the only one that might fit.
     */
    private boolean queueSettled;
    /** Requirements found to fit nowhere since the last full pass began, with the reason (valid while settled). */
    private final Map<Requirement, String> fitsNowhere = new HashMap<>();
    /** Counts the changes to the nodes that can change why an attempt waits (one came, went or changed). */
    private long nodesVersion;
    /** The shard's capacity at the last full pass (for quotas between passes). */
    private Capacity shardTotal = Resources.zero();

    private final ShardMetrics metrics;

    /**
     * A shard taking up its state (new, restarted, or taken over from another instance). Only reads
     * the store: what a return from an absence requires is done at the first record or tick.
     */
    public ShardScheduler(ShardSettings settings, BinPacker packer, ShardMetrics metrics, int shard, ShardStore store,
                          ShardOutbox outbox, long now) {
        this.settings = settings;
        this.metrics = metrics;
        this.packer = packer;
        this.shard = shard;
        this.outbox = outbox;
        this.events = new FrameworkEvents(settings.frameworkId(), shard);
        this.preemptionBudget = new PreemptionBudget(settings.preemptionsPerMinute(), now);
        this.state = new ShardState(store);
        this.liveness = new NodeLiveness(state, events, settings.nodeTimeout().toMillis(), now);
        this.catchUp = new CatchUp(settings.fenceAfterAbsence().toMillis(), shard, state, now);
    }

    /** A record on the shard's own tasks partition with no value: a resume marker ({@link CatchUp}) or nothing. */
    public void onMarker(String key, long now) {
        noticeReturn(now);
        if (CatchUp.isMarker(key) && catchUp.markerRead(key)) schedule(now); // every fence written before it has been read
    }

    /** An attempt the dispatcher sent here, or (with {@code cancel}) one to drop or stop. */
    public void onDispatch(TaskDispatch dispatch, long now) {
        noticeReturn(now);
        if (dispatch.getReady().getCancel()) {
            cancel(dispatch.getReady(), now);
            return;
        }
        String attemptId = dispatch.getReady().getAttemptId();
        if (state.placement(attemptId) == null && state.queued(attemptId) == null) { // else a redelivery
            state.enqueue(dispatch);
            if (queueSettled) tryAlone(dispatch, now);
            else schedule(now);
        }
    }

    public void onNodeHeartbeat(NodeHeartbeat heartbeat, long now) {
        noticeReturn(now);
        if (onHeartbeat(heartbeat, now)) {
            nodesVersion++;
            schedule(now);
        }
    }

    /** What a node reports of an attempt it runs. */
    public void onAttemptEvent(AttemptEvent event, long now) {
        noticeReturn(now);
        if (onAttemptReport(event, now)) schedule(now);
    }

    /** The shard's clock: judge the nodes, place what fits, tell the dispatcher what the shard has. */
    public void tick(long now) {
        noticeAbsence(now);
        liveness.declareSilentNodesLost(now, () -> {
            metrics.nodeLost();
            nodesVersion++;
        }).forEach(outbox::event);
        schedule(now);
        WaitingLines waiting = state.waiting();
        List<String> queueHead = waiting.isEmpty() ? List.of()
                : new FairShare(shardTotal, state.holdings().byOwner()).placementOrder(waiting, FrameworkHeartbeats.QUEUE_HEAD);
        outbox.heartbeat(ShardHeartbeat.of(settings, shard, state.nodes(), waiting.all(), queueHead, now));
    }

    /** A record read before the first tick back from an absence ends it first. */
    private void noticeReturn(long now) {
        if (catchUp.endsAnAbsence(now)) noticeAbsence(now);
    }

    /**
     * Queued here: dropped and reported. Placed here: its node is told to kill it, and reports. A
     * dispatcher's fence is the same, except that a fenced queued attempt was reported LOST already
     * and a fenced placed one (placed before this shard read the fence) ends as FRAMEWORK_LOST: the
     * planner may have retried it or kept it, depending on which report it read first, and either
     * way it must not run beside its retry.
     */
    private void cancel(TaskReady request, long now) {
        String attemptId = request.getAttemptId();
        if (state.queued(attemptId) != null) {
            state.dequeue(attemptId);
            holdNotices.forget(attemptId);
            if (request.getFence()) return; // the dispatcher has reported it LOST already
            outbox.event(events.cancelledWhileQueued(request, now));
            return;
        }
        Placement placement = state.placement(attemptId);
        if (placement != null) {
            if (request.getFence()) state.markFenced(placement, now);
            kill(placement.getNodeId(), request.getJobId(), request.getTaskId(), attemptId, request.getFence()
                    ? "the dispatcher moved it while this shard was silent" : "cancelled", now);
        }
    }

    /** @return whether the node brings room it did not offer before (new, back from lost, resized) */
    private boolean onHeartbeat(NodeHeartbeat heartbeat, long now) {
        String nodeId = heartbeat.getNodeId();
        NodeRecord node = state.node(nodeId);
        boolean newRoom = node == null || node.getLost() || !node.getHeartbeat().getTotal().equals(heartbeat.getTotal())
                || !node.getHeartbeat().getLabels().equals(heartbeat.getLabels())
                || node.getHeartbeat().getDiskType() != heartbeat.getDiskType()
                || !node.getHeartbeat().getImages().equals(heartbeat.getImages())
                || !Objects.equals(node.getHeartbeat().getUnhealthy(), heartbeat.getUnhealthy());
        if (node == null) {
            node = NodeRecord.newBuilder().setHeartbeat(heartbeat).setAllocated(Resources.zero())
                    .setPlacedAttempts(new ArrayList<>()).setLastSeenAt(now).setLost(false).build();
        } else if (!node.getLost() && node.getHeartbeat().getStartedAt() != heartbeat.getStartedAt()) {
            node.setRestartSeenAt(now); // its process restarted: what it ran before may be gone with it
            newRoom = true;
        }
        node.setHeartbeat(heartbeat);
        node.setLastSeenAt(now);
        node.setLost(false);
        // A plain "still alive" is written at most every third of the node timeout: enough for a
        // successor to judge the node, without a store write per heartbeat of every node.
        if (newRoom || now - lastPersisted.getOrDefault(nodeId, 0L) > settings.nodeTimeout().toMillis() / 3) {
            state.putNode(node);
            lastPersisted.put(nodeId, now);
        }
        if (node.getRestartSeenAt() != null) {
            List<TaskEvent> forgotten = liveness.loseWhatARestartedNodeDoesNotHold(node, heartbeat, now);
            forgotten.forEach(outbox::event);
            newRoom |= !forgotten.isEmpty();
            if (state.node(nodeId).getRestartSeenAt() == null) lastPersisted.put(nodeId, now);
        }
        // An attempt the node still runs but this shard no longer places (declared lost, or cancelled): stop it.
        for (String attemptId : heartbeat.getRunningAttempts()) {
            if (state.placement(attemptId) == null) {
                kill(nodeId, "", "", attemptId, "the framework no longer tracks this attempt (its node was declared lost)", now);
            }
        }
        return newRoom;
    }

    /** @return whether resources were freed */
    private boolean onAttemptReport(AttemptEvent event, long now) {
        Placement placement = state.placement(event.getAttemptId());
        if (placement == null) {
            return false; // an attempt this shard already settled: late or duplicate report
        }
        TaskReady ready = placement.getDispatch().getReady();
        TaskEvent out = events.reported(ready, placement.getNodeId(), event, placement.getFencedAt(), placement.getPreemptedBy());
        if (event.getState() == AttemptState.STARTED) {
            if (state.started(placement.getAttemptId())) return false;
            state.markStarted(placement);
            outbox.event(out);
            return false;
        }
        state.release(placement);
        outbox.event(out);
        return true;
    }

    /**
     * After any pause longer than a third of the node timeout, the nodes get a full timeout of
     * grace (the shard did not hear them, which is not their silence); after one longer than
     * {@code fenceAfterAbsence}, placement waits for a marker ({@link CatchUp}).
     */
    private void noticeAbsence(long now) {
        long away = catchUp.away(now);
        if (catchUp.endsAnAbsence(now)) {
            String marker = catchUp.markerWritten(now);
            outbox.marker(marker);
        }
        if (away > settings.nodeTimeout().toMillis() / 3) liveness.shardWasAway(now);
        catchUp.ticked(now);
    }

    /**
     * A full pass: every queued attempt in fair-share order, except that a group of equal attempts
     * that fits nowhere is passed over whole — one failed placement per group and pass, however many
     * attempts wait in it.
     */
    private void schedule(long now) {
        queueSettled = false;
        fitsNowhere.clear();
        if (state.waiting().isEmpty() || catchUp.holding()) return;
        Collection<NodeRecord> nodes = state.nodes();
        Capacity total = Resources.zero();
        Capacity largestFree = Resources.zero();
        for (NodeRecord node : nodes) {
            if (node.getLost()) continue;
            total = Resources.plus(total, node.getHeartbeat().getTotal());
            largestFree = Resources.max(largestFree, Resources.minus(node.getHeartbeat().getTotal(), node.getAllocated()));
        }
        shardTotal = total;
        Holdings holdings = state.holdings();
        FairShare fairShare = new FairShare(shardTotal, holdings.byOwner());
        // The fairest candidate first; a group that fits nowhere waits for the next round.
        for (FairShare.Pass pass = fairShare.pass(state.waiting()); pass.hasNext(); ) {
            TaskDispatch dispatch = pass.next();
            WaitingLines.Group group = pass.group();
            TaskReady ready = dispatch.getReady();
            Capacity need = ready.getTask().getResources();
            // Cheap test first: bigger than every node's free room in some dimension means no node
            // fits; the full per-node explanation is worked out once per change to the nodes, not
            // on every pass.
            boolean hopeless = !Resources.fits(need, largestFree) && group.allTold(nodesVersion)
                    && settings.quotas().refusal(ready.getQueue(), need, holdings.ofQueue(ready.getQueue()), shardTotal) == null;
            if (hopeless && !(preemptionBudget.enabled() && holdings.anyBelow(ready.getPriority()))) {
                pass.skipGroup();
                continue;
            }
            if (tryPlace(dispatch, holdings, nodes, now)) {
                fairShare.placed(ready.getOwner(), need);
            } else if (fitsNowhere.containsKey(group.requirement())) {
                tell(group, fitsNowhere.get(group.requirement()), now);
                pass.skipGroup();
            }
        }
        queueSettled = true; // placements only took room: what is still queued does not fit
    }

    /** Tells a group that fits nowhere why: every member when the reason is news, else those that joined since. */
    private void tell(WaitingLines.Group group, String reason, long now) {
        boolean news = group.toldReason() == null || !HoldReasons.sameInWords(group.toldReason(), reason);
        List<TaskDispatch> members = news ? List.copyOf(group.members())
                : group.untold().stream().map(state::queued).toList();
        members.forEach(member -> hold(member.getReady(), reason, now));
        group.told(reason, nodesVersion);
    }

    /** A newly queued attempt while the rest of the queue is known not to fit. */
    private void tryAlone(TaskDispatch dispatch, long now) {
        if (catchUp.holding()) return;
        tryPlace(dispatch, state.holdings(), state.nodes(), now);
    }

    /** @return whether the attempt was placed; if not, it waits with a HELD reason */
    private boolean tryPlace(TaskDispatch dispatch, Holdings holdings, Collection<NodeRecord> nodes, long now) {
        metrics.tried();
        TaskReady ready = dispatch.getReady();
        Capacity need = ready.getTask().getResources();
        // Placements only take room, so an attempt equal to one that fit nowhere cannot fit either.
        Requirement requirement = Requirement.of(ready);
        String known = fitsNowhere.get(requirement);
        if (known != null) {
            hold(ready, known, now);
            return false;
        }
        String quotaRefusal = settings.quotas().refusal(ready.getQueue(), need, holdings.ofQueue(ready.getQueue()), shardTotal);
        BinPacker.Choice choice = quotaRefusal != null ? new BinPacker.Choice(null, quotaRefusal)
                : packer.place(ready.getTask(), state.index(), nodes);
        if (choice.nodeId() == null) {
            String reason = settings.frameworkId() + " shard " + shard + ": " + choice.reason();
            String preemption = quotaRefusal == null ? preemptFor(ready, nodes, now) : "";
            if (preemption.isEmpty()) fitsNowhere.put(requirement, reason); // else the next equal one may preempt too
            hold(ready, reason + preemption, now);
            return false;
        }
        place(dispatch, state.node(choice.nodeId()), now);
        return true;
    }

    /** Tells the planner why the attempt waits, once per distinct reason. */
    private void hold(TaskReady ready, String reason, long now) {
        if (!holdNotices.due(ready.getAttemptId(), reason)) return;
        outbox.event(events.held(ready, reason, now));
        WaitingLines.Group group = state.waiting().groupOf(ready.getAttemptId());
        // Told apart from its group (a preemption under way): its group's next reason is news to it.
        if (group != null && !HoldReasons.sameInWords(group.toldReason(), reason)) group.toldApart(ready.getAttemptId());
    }

    private void place(TaskDispatch dispatch, NodeRecord node, long now) {
        TaskReady ready = dispatch.getReady();
        String nodeId = node.getHeartbeat().getNodeId();
        holdNotices.forget(ready.getAttemptId());
        state.dequeue(ready.getAttemptId());
        metrics.placed(dispatch.getDispatchedAt(), now);
        state.place(Placement.newBuilder().setAttemptId(ready.getAttemptId())
                .setNodeId(nodeId).setDispatch(dispatch).setStarted(false).setPlacedAt(now).build());
        outbox.assignment(Assignment.newBuilder()
                .setNodeId(nodeId).setAction(AssignmentAction.RUN)
                .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                .setTask(ready.getTask()).setAssignedAt(now).build());
        Double costPerHour = settings.nodeClasses().pricePerHour(node.getHeartbeat())
                .map(price -> Costs.perHour(price, ready.getTask().getResources(), node.getHeartbeat().getTotal())).orElse(null);
        outbox.event(events.placed(ready, nodeId, costPerHour, now));
    }

    /**
     * Stops lower-priority attempts to make room for {@code ready}, within the rate limit.
     * @return what the waiting attempt is told about it ("" when preemption cannot help)
     */
    private String preemptFor(TaskReady ready, Collection<NodeRecord> nodes, long now) {
        if (!preemptionBudget.enabled()) return "";
        Optional<Preemptor.Plan> plan = preemptor.plan(ready.getTask(), ready.getPriority(), nodes, state.holdings());
        if (plan.isEmpty()) return "";
        List<Holdings.Held> victims = plan.get().victims();
        if (victims.isEmpty()) {
            return "; waiting for preempted attempts on " + plan.get().nodeId() + " to stop";
        }
        if (!preemptionBudget.tryTake(victims.size(), now)) {
            return "; preempting " + victims.size() + " lower-priority attempts would exceed "
                    + settings.preemptionsPerMinute() + " per minute, waiting";
        }
        for (Holdings.Held victim : victims) {
            Placement placement = state.placement(victim.attemptId());
            state.markPreempted(placement, ready.getAttemptId());
            metrics.preempted();
            TaskReady v = placement.getDispatch().getReady();
            kill(victim.nodeId(), v.getJobId(), v.getTaskId(), victim.attemptId(), "preempted for higher-priority attempt "
                    + ready.getAttemptId() + " (priority " + ready.getPriority() + " > " + victim.priority() + ")", now);
        }
        return "; preempting " + victims.size() + " lower-priority attempt" + (victims.size() == 1 ? "" : "s")
                + " on " + plan.get().nodeId();
    }

    private void kill(String nodeId, String jobId, String taskId, String attemptId, String reason, long now) {
        outbox.assignment(Assignment.newBuilder()
                .setNodeId(nodeId).setAction(AssignmentAction.KILL)
                .setJobId(jobId).setTaskId(taskId).setAttemptId(attemptId)
                .setReason(reason).setAssignedAt(now).build());
    }
}
