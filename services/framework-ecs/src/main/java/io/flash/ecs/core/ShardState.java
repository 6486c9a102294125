package io.flash.ecs.core;

import io.flash.ecs.core.placement.NodeIndex;
import io.flash.common.resources.Resources;
import io.flash.ecs.core.queue.Holdings;
import io.flash.ecs.core.queue.WaitingLines;
import io.flash.schema.*;
import io.flash.common.framework.CatchUp;
import io.flash.common.state.Table;

import java.util.*;

/**
 * One shard's state: the {@link ShardStore} is the truth (changelogged, restored on takeover);
 * nodes, queue (as {@link WaitingLines}) and holdings are also kept in memory, read once after (re)initialisation and then
 * written through, so a scheduling pass never deserialises every node and queued attempt from RocksDB.
 * <p>
 * The room a node's attempts take (its {@code allocated} and {@code placedAttempts}) is the sum of
 * its placements, so it is derived from the placement store at load and changed in memory only:
 * a placement or release writes the placement, not the node's record as well. The node's record is
 * written when the node itself changes (it came, went, grew, restarted, or a periodic "still
 * alive"), and what it carries of the room taken is whatever it was then, never read back.
 */
final class ShardState implements CatchUp.Persisted {

    private final Table<NodeRecord> nodeStore;
    private final Table<TaskDispatch> queueStore;
    private final Table<Placement> placementStore;
    private final Table<Long> clockStore;
    private final Map<String, NodeRecord> nodes = new TreeMap<>();
    private final WaitingLines waiting = new WaitingLines();
    private final Holdings holdings = new Holdings();
    private final Set<String> started = new HashSet<>();
    private final NodeIndex index = new NodeIndex();

    ShardState(ShardStore store) {
        nodeStore = store.nodes();
        queueStore = store.queue();
        placementStore = store.placements();
        clockStore = store.clock();
        nodeStore.forEach(nodes::put); // indexed once their room is derived, below
        queueStore.forEach((id, dispatch) -> waiting.add(dispatch));
        placementStore.forEach((id, placement) -> holdings.add(held(placement)));
        nodes.values().forEach(this::deriveRoomTaken);
    }

    /** A node's room taken, from its placements: each in the order it was placed. */
    private void deriveRoomTaken(NodeRecord node) {
        List<Holdings.Held> placed = new ArrayList<>(holdings.onNode(node.getHeartbeat().getNodeId()));
        placed.sort(Comparator.comparingLong(Holdings.Held::placedAt).thenComparing(Holdings.Held::attemptId));
        Capacity allocated = Resources.zero();
        for (Holdings.Held held : placed) allocated = Resources.plus(allocated, held.resources());
        node.setAllocated(allocated);
        node.setPlacedAttempts(new ArrayList<>(placed.stream().map(Holdings.Held::attemptId).toList()));
        index.put(node);
    }

    NodeRecord node(String nodeId) {
        return nodes.get(nodeId);
    }

    /** Every node, lost ones included, in id order. */
    Collection<NodeRecord> nodes() {
        return nodes.values();
    }

    void putNode(NodeRecord node) {
        roomChanged(node);
        nodeStore.put(node.getHeartbeat().getNodeId(), node);
    }

    /** The node as it now is, in memory and in the index; a placement or release goes no further (its room is derived, see above). */
    private void roomChanged(NodeRecord node) {
        nodes.put(node.getHeartbeat().getNodeId(), node);
        index.put(node);
    }

    /** Live nodes by free cpu, in step with every {@link #putNode}. */
    NodeIndex index() {
        return index;
    }

    TaskDispatch queued(String attemptId) {
        return waiting.get(attemptId);
    }

    /** The queue, in the lines fair share walks. */
    WaitingLines waiting() {
        return waiting;
    }

    void enqueue(TaskDispatch dispatch) {
        waiting.add(dispatch);
        queueStore.put(dispatch.getReady().getAttemptId(), dispatch);
    }

    void dequeue(String attemptId) {
        waiting.remove(attemptId);
        queueStore.delete(attemptId);
    }

    Placement placement(String attemptId) {
        return placementStore.get(attemptId);
    }

    /** Places the attempt, and its room is taken on its node. */
    void place(Placement placement) {
        placementStore.put(placement.getAttemptId(), placement);
        holdings.add(held(placement));
        NodeRecord node = node(placement.getNodeId());
        node.setAllocated(Resources.plus(node.getAllocated(), placement.getDispatch().getReady().getTask().getResources()));
        List<String> placed = new ArrayList<>(node.getPlacedAttempts());
        placed.add(placement.getAttemptId());
        node.setPlacedAttempts(placed);
        roomChanged(node);
    }

    void markPreempted(Placement placement, String forAttempt) {
        placement.setPreemptedBy(forAttempt);
        placementStore.put(placement.getAttemptId(), placement);
        holdings.markPreempting(placement.getAttemptId());
    }

    void markFenced(Placement placement, long now) {
        placement.setFencedAt(now);
        placementStore.put(placement.getAttemptId(), placement);
    }

    /**
     * Kept in memory only, not written to the placement: it stops a repeated STARTED report from
     * becoming a second task event, which a restarted shard may let through once (the planner
     * takes a start of a running unit as the same start) — a changelog record per attempt saved.
     */
    void markStarted(Placement placement) {
        started.add(placement.getAttemptId());
    }

    boolean started(String attemptId) {
        return started.contains(attemptId);
    }

    void unplace(String attemptId) {
        started.remove(attemptId);
        placementStore.delete(attemptId);
        holdings.remove(attemptId);
    }

    /** Takes the attempt's room back from its node. */
    void release(Placement placement) {
        unplace(placement.getAttemptId());
        NodeRecord node = node(placement.getNodeId());
        if (node == null || !node.getPlacedAttempts().contains(placement.getAttemptId())) {
            return;
        }
        node.setAllocated(Resources.minus(node.getAllocated(), placement.getDispatch().getReady().getTask().getResources()));
        List<String> placed = new ArrayList<>(node.getPlacedAttempts());
        placed.remove(placement.getAttemptId());
        node.setPlacedAttempts(placed);
        roomChanged(node);
    }

    /** When this shard last ticked (committed with what it did then), or null before its first tick. */
    @Override
    public Long lastTickAt() {
        return clockStore.get("lastTickAt");
    }

    @Override
    public void ticked(long now) {
        clockStore.put("lastTickAt", now);
    }

    /** When the marker this shard waits for was written ({@link CatchUp}), or null when it waits for none. */
    @Override
    public Long markerAt() {
        return clockStore.get("markerAt");
    }

    @Override
    public void markerAt(Long at) {
        if (at == null) clockStore.delete("markerAt");
        else clockStore.put("markerAt", at);
    }

    Holdings holdings() {
        return holdings;
    }

    private static Holdings.Held held(Placement p) {
        TaskReady r = p.getDispatch().getReady();
        return new Holdings.Held(p.getAttemptId(), r.getOwner(), r.getQueue(), r.getPriority(), p.getNodeId(),
                r.getTask().getResources(), p.getPlacedAt(), p.getPreemptedBy() != null);
    }
}
