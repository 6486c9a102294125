package io.flash.ecs.core;

import io.flash.common.framework.FrameworkEvents;
import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.*;

/**
 * Judges a shard's nodes: one silent for the node timeout is LOST with all its attempts; one whose
 * process restarted loses, a node timeout later, the attempts placed before the restart that its
 * heartbeat does not list. Silence is counted only from {@code judgeFrom}: a shard that was itself
 * away (restarted, frozen, starved) did not hear its nodes meanwhile, which is not their silence —
 * a restarted shard once declared 25 nodes LOST that had heartbeated throughout.
 */
final class NodeLiveness {

    private final ShardState state;
    private final FrameworkEvents events;
    private final long nodeTimeoutMillis;
    private long judgeFrom;

    NodeLiveness(ShardState state, FrameworkEvents events, long nodeTimeoutMillis, long now) {
        this.state = state;
        this.events = events;
        this.nodeTimeoutMillis = nodeTimeoutMillis;
        this.judgeFrom = now;
    }

    /** The shard could not hear its nodes until now: every node gets a full timeout from here. */
    void shardWasAway(long now) {
        judgeFrom = now;
    }

    /** @return the LOST events of the attempts of every node found silent (the nodes are marked lost) */
    List<TaskEvent> declareSilentNodesLost(long now, Runnable onNodeLost) {
        List<TaskEvent> events = new ArrayList<>();
        List<NodeRecord> silent = state.nodes().stream()
                .filter(n -> !n.getLost() && now - Math.max(n.getLastSeenAt(), judgeFrom) > nodeTimeoutMillis).toList();
        for (NodeRecord node : silent) {
            String nodeId = node.getHeartbeat().getNodeId();
            for (String attemptId : List.copyOf(node.getPlacedAttempts())) {
                Placement placement = state.placement(attemptId);
                if (placement == null) continue;
                state.unplace(attemptId);
                events.add(lost(placement, "node " + nodeId + " sent no heartbeat for "
                        + (now - Math.max(node.getLastSeenAt(), judgeFrom)) / 1000 + " s", now));
            }
            onNodeLost.run();
            node.setLost(true);
            node.setAllocated(Resources.zero());
            node.setPlacedAttempts(new ArrayList<>());
            state.putNode(node);
        }
        return events;
    }

    /**
     * One node timeout after a node's process restarted (assignments in flight and reconciled
     * containers have been reported by then), an attempt placed before the restart that its
     * heartbeat does not list is gone: lost, retried without the user's budget.
     *
     * @return the LOST events, empty when the node still holds everything or its restart is recent
     */
    List<TaskEvent> loseWhatARestartedNodeDoesNotHold(NodeRecord node, NodeHeartbeat heartbeat, long now) {
        if (node.getRestartSeenAt() == null || now - node.getRestartSeenAt() < nodeTimeoutMillis) return List.of();
        Set<String> held = new HashSet<>(heartbeat.getRunningAttempts());
        long restart = node.getRestartSeenAt();
        List<TaskEvent> events = new ArrayList<>();
        for (String attemptId : List.copyOf(node.getPlacedAttempts())) {
            Placement placement = state.placement(attemptId);
            if (placement == null || placement.getPlacedAt() >= restart || held.contains(attemptId)) continue;
            state.release(placement);
            events.add(lost(placement, "node " + placement.getNodeId() + " restarted and does not hold this attempt", now));
        }
        NodeRecord after = state.node(node.getHeartbeat().getNodeId());
        after.setRestartSeenAt(null);
        state.putNode(after);
        return events;
    }

    private TaskEvent lost(Placement placement, String reason, long now) {
        return events.lost(placement.getDispatch().getReady(), placement.getNodeId(), FailureClass.NODE_LOST, reason, now);
    }
}
