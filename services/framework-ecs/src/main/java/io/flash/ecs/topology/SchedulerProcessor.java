package io.flash.ecs.topology;

import io.flash.ecs.placement.BinPacker;
import io.flash.ecs.placement.Resources;
import io.flash.ecs.preemption.PreemptionBudget;
import io.flash.ecs.preemption.Preemptor;
import io.flash.ecs.queue.FairShare;
import io.flash.ecs.queue.Holdings;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.time.Clock;
import java.util.*;

import static io.flash.ecs.topology.EcsTopology.*;

/**
 * One scheduling shard: keeps its nodes, queues dispatched attempts, places them, turns executor
 * reports into task events, declares silent nodes LOST (all their attempts in one batch),
 * preempts lower-priority attempts for higher-priority ones that fit nowhere (rate-limited) and
 * heartbeats the shard's capacity to the dispatcher.
 */
final class SchedulerProcessor implements Processor<String, SpecificRecord, String, SpecificRecord> {

    private final Settings settings;
    private final BinPacker packer;
    private final Preemptor preemptor = new Preemptor();
    private final Clock clock;
    private final PreemptionBudget preemptionBudget;
    /** Index of the placements store for the policies; built on first use, then kept in step. */
    private Holdings holdings;
    /** Last reason an attempt could not be placed, so the planner hears each reason once. */
    private final Map<String, String> lastHoldReason = new HashMap<>();
    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, NodeRecord> nodes;
    private KeyValueStore<String, TaskDispatch> queue;
    private KeyValueStore<String, Placement> placements;
    private int shard;

    SchedulerProcessor(Settings settings, BinPacker packer, Clock clock) {
        this.settings = settings;
        this.packer = packer;
        this.clock = clock;
        this.preemptionBudget = new PreemptionBudget(settings.preemptionsPerMinute(), clock.millis());
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        this.nodes = context.getStateStore(NODES_STORE);
        this.queue = context.getStateStore(QUEUE_STORE);
        this.placements = context.getStateStore(PLACEMENTS_STORE);
        this.shard = context.taskId().partition();
        context.schedule(settings.tick(), PunctuationType.WALL_CLOCK_TIME, ts -> tick());
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        long now = clock.millis();
        SpecificRecord value = record.value();
        if (value instanceof TaskDispatch dispatch && dispatch.getReady().getCancel()) {
            cancel(dispatch.getReady(), now);
        } else if (value instanceof TaskDispatch dispatch) {
            String attemptId = dispatch.getReady().getAttemptId();
            if (placements.get(attemptId) == null && queue.get(attemptId) == null) {
                queue.put(attemptId, dispatch);
                schedule(now);
            }
        } else if (value instanceof NodeHeartbeat heartbeat) {
            onHeartbeat(heartbeat, now);
            schedule(now);
        } else if (value instanceof AttemptEvent event) {
            if (onAttemptEvent(event, now)) {
                schedule(now);
            }
        }
    }

    /** Queued here: dropped and reported. Placed here: its node is told to kill it, and reports. */
    private void cancel(TaskReady request, long now) {
        String attemptId = request.getAttemptId();
        TaskDispatch queued = queue.get(attemptId);
        if (queued != null) {
            queue.delete(attemptId);
            lastHoldReason.remove(attemptId);
            emit(request.getJobId(), TaskEvent.newBuilder()
                    .setJobId(request.getJobId()).setTaskId(request.getTaskId()).setAttemptId(attemptId)
                    .setType(TaskEventType.CANCELLED).setFrameworkId(settings.frameworkId()).setShard(shard)
                    .setFailureClass(FailureClass.CANCELLED).setReason("cancelled while queued").setAt(now).build(), now);
            return;
        }
        Placement placement = placements.get(attemptId);
        if (placement != null) {
            context.forward(record(placement.getNodeId(), Assignment.newBuilder()
                    .setNodeId(placement.getNodeId()).setAction(AssignmentAction.KILL)
                    .setJobId(request.getJobId()).setTaskId(request.getTaskId()).setAttemptId(attemptId)
                    .setReason("cancelled").setAssignedAt(now).build(), now), ASSIGNMENTS_SINK);
        }
    }

    private void onHeartbeat(NodeHeartbeat heartbeat, long now) {
        NodeRecord node = nodes.get(heartbeat.getNodeId());
        if (node == null) {
            node = NodeRecord.newBuilder().setHeartbeat(heartbeat).setAllocated(Resources.zero())
                    .setPlacedAttempts(new ArrayList<>()).setLastSeenAt(now).setLost(false).build();
        }
        node.setHeartbeat(heartbeat);
        node.setLastSeenAt(now);
        node.setLost(false);
        nodes.put(heartbeat.getNodeId(), node);
        // An attempt the node still runs but this shard no longer places (declared lost, or cancelled): stop it.
        for (String attemptId : heartbeat.getRunningAttempts()) {
            if (placements.get(attemptId) == null) {
                context.forward(record(heartbeat.getNodeId(), Assignment.newBuilder()
                        .setNodeId(heartbeat.getNodeId()).setAction(AssignmentAction.KILL)
                        .setJobId("").setTaskId("").setAttemptId(attemptId)
                        .setReason("the framework no longer tracks this attempt (its node was declared lost)")
                        .setAssignedAt(now).build(), now), ASSIGNMENTS_SINK);
            }
        }
    }

    /** @return whether resources were freed */
    private boolean onAttemptEvent(AttemptEvent event, long now) {
        Placement placement = placements.get(event.getAttemptId());
        if (placement == null) {
            return false; // an attempt this shard already settled: late or duplicate report
        }
        TaskReady ready = placement.getDispatch().getReady();
        TaskEvent.Builder out = TaskEvent.newBuilder()
                .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                .setFrameworkId(settings.frameworkId()).setNodeId(placement.getNodeId())
                .setExitCode(event.getExitCode()).setFailureClass(event.getFailureClass()).setReason(event.getReason())
                .setStdoutTail(event.getStdoutTail()).setOutputs(event.getOutputs()).setPeakMemoryBytes(event.getPeakMemoryBytes())
                .setCpuSeconds(event.getCpuSeconds()).setAt(event.getAt());
        switch (event.getState()) {
            case STARTED -> {
                if (placement.getStarted()) {
                    return false;
                }
                placement.setStarted(true);
                placements.put(event.getAttemptId(), placement);
                emit(ready.getJobId(), out.setType(TaskEventType.STARTED).build(), now);
                return false;
            }
            case SUCCEEDED -> out.setType(TaskEventType.SUCCEEDED);
            case FAILED -> out.setType(TaskEventType.FAILED);
            case CANCELLED -> out.setType(TaskEventType.CANCELLED);
        }
        if (placement.getPreemptedBy() != null && event.getState() != AttemptState.SUCCEEDED) {
            out.setType(TaskEventType.FAILED).setFailureClass(FailureClass.PREEMPTED)
                    .setReason("stopped to make room for higher-priority attempt " + placement.getPreemptedBy());
        }
        release(placement);
        emit(ready.getJobId(), out.build(), now);
        return true;
    }

    private void tick() {
        long now = clock.millis();
        declareLostNodes(now);
        schedule(now);
        heartbeat(now);
    }

    private void declareLostNodes(long now) {
        List<NodeRecord> lost = new ArrayList<>();
        try (KeyValueIterator<String, NodeRecord> it = nodes.all()) {
            it.forEachRemaining(kv -> {
                if (!kv.value.getLost() && now - kv.value.getLastSeenAt() > settings.nodeTimeout().toMillis()) {
                    lost.add(kv.value);
                }
            });
        }
        for (NodeRecord node : lost) {
            String nodeId = node.getHeartbeat().getNodeId();
            for (String attemptId : List.copyOf(node.getPlacedAttempts())) {
                Placement placement = placements.get(attemptId);
                if (placement == null) continue;
                TaskReady ready = placement.getDispatch().getReady();
                placements.delete(attemptId);
                holdings().remove(attemptId);
                emit(ready.getJobId(), TaskEvent.newBuilder()
                        .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(attemptId)
                        .setType(TaskEventType.LOST).setFrameworkId(settings.frameworkId()).setNodeId(nodeId)
                        .setFailureClass(FailureClass.NODE_LOST)
                        .setReason("node " + nodeId + " sent no heartbeat for " + (now - node.getLastSeenAt()) / 1000 + " s")
                        .setAt(now).build(), now);
            }
            node.setLost(true);
            node.setAllocated(Resources.zero());
            node.setPlacedAttempts(new ArrayList<>());
            nodes.put(nodeId, node);
        }
    }

    private void schedule(long now) {
        List<TaskDispatch> waiting = new ArrayList<>();
        try (KeyValueIterator<String, TaskDispatch> it = queue.all()) {
            it.forEachRemaining(kv -> waiting.add(kv.value));
        }
        if (waiting.isEmpty()) return;
        Map<String, NodeRecord> live = new LinkedHashMap<>();
        try (KeyValueIterator<String, NodeRecord> it = nodes.all()) {
            it.forEachRemaining(kv -> live.put(kv.key, kv.value));
        }
        Capacity shardTotal = shardTotal(live.values());
        FairShare fairShare = new FairShare(shardTotal, holdings().byOwner());
        // The fairest candidate first; one that fits nowhere waits for the next round.
        for (Iterator<TaskDispatch> order = fairShare.order(waiting); order.hasNext(); ) {
            TaskDispatch dispatch = order.next();
            TaskReady ready = dispatch.getReady();
            String quotaRefusal = settings.quotas().refusal(ready.getQueue(), ready.getTask().getResources(),
                    holdings().ofQueue(ready.getQueue()), shardTotal);
            BinPacker.Choice choice = quotaRefusal != null ? new BinPacker.Choice(null, quotaRefusal)
                    : packer.place(ready.getTask(), live.values());
            if (choice.nodeId() == null) {
                String reason = settings.frameworkId() + " shard " + shard + ": " + choice.reason();
                if (quotaRefusal == null) reason += preemptFor(ready, live, now);
                if (!reason.equals(lastHoldReason.put(ready.getAttemptId(), reason))) {
                    emit(ready.getJobId(), TaskEvent.newBuilder()
                            .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                            .setType(TaskEventType.HELD).setFrameworkId(settings.frameworkId()).setReason(reason)
                            .setAt(now).build(), now);
                }
                continue;
            }
            fairShare.placed(ready.getOwner(), ready.getTask().getResources());
            lastHoldReason.remove(ready.getAttemptId());
            NodeRecord node = live.get(choice.nodeId());
            node.setAllocated(Resources.plus(node.getAllocated(), ready.getTask().getResources()));
            List<String> placed = new ArrayList<>(node.getPlacedAttempts());
            placed.add(ready.getAttemptId());
            node.setPlacedAttempts(placed);
            nodes.put(choice.nodeId(), node);
            queue.delete(ready.getAttemptId());
            Placement placement = Placement.newBuilder().setAttemptId(ready.getAttemptId())
                    .setNodeId(choice.nodeId()).setDispatch(dispatch).setStarted(false).setPlacedAt(now).build();
            placements.put(ready.getAttemptId(), placement);
            holdings().add(held(placement));
            context.forward(record(choice.nodeId(), Assignment.newBuilder()
                    .setNodeId(choice.nodeId()).setAction(AssignmentAction.RUN)
                    .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                    .setTask(ready.getTask()).setAssignedAt(now).build(), now), ASSIGNMENTS_SINK);
            emit(ready.getJobId(), TaskEvent.newBuilder()
                    .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                    .setType(TaskEventType.PLACED).setFrameworkId(settings.frameworkId()).setNodeId(choice.nodeId())
                    .setAt(now).build(), now);
        }
    }

    private static Capacity shardTotal(Collection<NodeRecord> nodes) {
        Capacity total = Resources.zero();
        for (NodeRecord node : nodes) {
            if (!node.getLost()) total = Resources.plus(total, node.getHeartbeat().getTotal());
        }
        return total;
    }

    private Holdings holdings() {
        if (holdings == null) {
            holdings = new Holdings();
            try (KeyValueIterator<String, Placement> it = placements.all()) {
                it.forEachRemaining(kv -> holdings.add(held(kv.value)));
            }
        }
        return holdings;
    }

    private static Holdings.Held held(Placement p) {
        TaskReady r = p.getDispatch().getReady();
        return new Holdings.Held(p.getAttemptId(), r.getOwner(), r.getQueue(), r.getPriority(), p.getNodeId(),
                r.getTask().getResources(), p.getPlacedAt(), p.getPreemptedBy() != null);
    }

    /**
     * Stops lower-priority attempts to make room for {@code ready}, within the rate limit.
     * @return what the waiting attempt is told about it ("" when preemption cannot help)
     */
    private String preemptFor(TaskReady ready, Map<String, NodeRecord> live, long now) {
        if (!preemptionBudget.enabled()) return "";
        Optional<Preemptor.Plan> plan = preemptor.plan(ready.getTask(), ready.getPriority(), live.values(), holdings());
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
            Placement placement = placements.get(victim.attemptId());
            placement.setPreemptedBy(ready.getAttemptId());
            placements.put(victim.attemptId(), placement);
            holdings().markPreempting(victim.attemptId());
            TaskReady v = placement.getDispatch().getReady();
            context.forward(record(victim.nodeId(), Assignment.newBuilder()
                    .setNodeId(victim.nodeId()).setAction(AssignmentAction.KILL)
                    .setJobId(v.getJobId()).setTaskId(v.getTaskId()).setAttemptId(victim.attemptId())
                    .setReason("preempted for higher-priority attempt " + ready.getAttemptId()
                            + " (priority " + ready.getPriority() + " > " + victim.priority() + ")")
                    .setAssignedAt(now).build(), now), ASSIGNMENTS_SINK);
        }
        return "; preempting " + victims.size() + " lower-priority attempt" + (victims.size() == 1 ? "" : "s")
                + " on " + plan.get().nodeId();
    }

    private void release(Placement placement) {
        placements.delete(placement.getAttemptId());
        holdings().remove(placement.getAttemptId());
        NodeRecord node = nodes.get(placement.getNodeId());
        if (node == null || !node.getPlacedAttempts().contains(placement.getAttemptId())) {
            return;
        }
        node.setAllocated(Resources.minus(node.getAllocated(), placement.getDispatch().getReady().getTask().getResources()));
        List<String> placed = new ArrayList<>(node.getPlacedAttempts());
        placed.remove(placement.getAttemptId());
        node.setPlacedAttempts(placed);
        nodes.put(placement.getNodeId(), node);
    }

    private void heartbeat(long now) {
        int count = 0;
        Capacity total = Resources.zero(), free = Resources.zero(), largestFree = Resources.zero(), largestTotal = Resources.zero();
        Set<DiskType> diskTypes = EnumSet.noneOf(DiskType.class);
        boolean network = false;
        try (KeyValueIterator<String, NodeRecord> it = nodes.all()) {
            while (it.hasNext()) {
                NodeRecord node = it.next().value;
                if (node.getLost()) continue;
                count++;
                Capacity nodeTotal = node.getHeartbeat().getTotal();
                Capacity nodeFree = Resources.minus(nodeTotal, node.getAllocated());
                total = Resources.plus(total, nodeTotal);
                free = Resources.plus(free, nodeFree);
                largestFree = Resources.max(largestFree, nodeFree);
                largestTotal = Resources.max(largestTotal, nodeTotal);
                diskTypes.add(node.getHeartbeat().getDiskType());
                network |= node.getHeartbeat().getNetwork();
            }
        }
        long queued = 0;
        Capacity queuedDemand = Resources.zero();
        try (KeyValueIterator<String, TaskDispatch> it = queue.all()) {
            while (it.hasNext()) {
                queuedDemand = Resources.plus(queuedDemand, it.next().value.getReady().getTask().getResources());
                queued++;
            }
        }
        FrameworkHeartbeat hb = FrameworkHeartbeat.newBuilder()
                .setFrameworkId(settings.frameworkId()).setShard(shard).setNodes(count)
                .setTotal(total).setFree(free).setLargestNodeFree(largestFree).setLargestNodeTotal(largestTotal)
                .setDiskTypes(new ArrayList<>(diskTypes)).setNetwork(network)
                .setQueued((int) queued).setQueuedDemand(queuedDemand).setAcceptLimit(settings.acceptLimit()).setSentAt(now).build();
        context.forward(record(settings.frameworkId() + "/" + shard, hb, now), HEARTBEAT_SINK);
    }

    private void emit(String jobId, TaskEvent event, long now) {
        context.forward(record(jobId, event, now), EVENTS_SINK);
    }
}
