package io.flash.autoscaler.core;

import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
import io.flash.schema.CapacityState;
import io.flash.schema.NodeClass;
import io.flash.schema.PendingLaunch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides a framework's capacity (docs/autoscaling.md), with no Kafka and no clock: when work has
 * waited {@code scaleUpAfter} with no room and no launch coming for it, launch the cheapest nodes
 * that hold it — spot for work that allows spot — in the shard where it waits; when a node it
 * launched has run nothing for {@code idleBeforeDrain} and nothing waits, drain it, down to zero;
 * never above {@code maxNodes} or {@code maxSpendPerHour}. Every decision says why in words; what a
 * limit held back is in {@link Plan#held}. The state it keeps makes a decision once: a launch counts
 * as room until its node reports, so a restart from the same state decides nothing twice.
 */
public final class CapacityPlanner {

    /** What to do now, and what could not be done and why (empty when nothing was held back). */
    public record Plan(List<CapacityDecision> decisions, String held) {
    }

    private final ScalerSettings settings;
    private final ShardOfNode shards;

    public CapacityPlanner(ScalerSettings settings, ShardOfNode shards) {
        this.settings = settings;
        this.shards = shards;
    }

    public Plan decide(FrameworkSight sight, CapacityState state, long now) {
        Map<String, FrameworkSight.Node> live = new HashMap<>();
        sight.shards().forEach(s -> s.nodes().forEach(n -> live.put(n.nodeId(), n)));
        state.getLaunches().keySet().removeIf(id -> live.containsKey(id)
                || now - state.getLaunches().get(id).getAt() > settings.launchTimeout().toMillis());
        // A drain the node never took (the runner gave it up) is forgotten after the launch timeout: it is decided again.
        state.getDraining().keySet().removeIf(id -> !live.containsKey(id)
                || now - state.getDraining().get(id) > settings.launchTimeout().toMillis());
        trackIdle(live, state, now);

        Prices prices = new Prices(sight.catalogue());
        Budget budget = new Budget(live.size() + state.getLaunches().size(), spend(live, state, prices));
        List<CapacityDecision> decisions = new ArrayList<>();
        StringBuilder held = new StringBuilder();
        boolean waiting = false;
        for (FrameworkSight.Shard shard : sight.shards()) {
            List<Demand.Unmet> unmet = Demand.unmet(shard.waiting(), rooms(shard, state));
            if (unmet.isEmpty()) continue;
            waiting = true;
            if (state.getDemandSince() == null) state.setDemandSince(now);
            if (now - state.getDemandSince() < settings.scaleUpAfter().toMillis()) continue;
            launch(sight.frameworkId(), shard.shard(), unmet, prices, budget, state, now, decisions, held);
        }
        if (!waiting) {
            state.setDemandSince(null);
            drainIdle(sight.frameworkId(), live, state, now, decisions);
        }
        return new Plan(decisions, held.toString());
    }

    private void trackIdle(Map<String, FrameworkSight.Node> live, CapacityState state, long now) {
        state.getIdleSince().keySet().removeIf(id -> !live.containsKey(id));
        for (FrameworkSight.Node node : live.values()) {
            boolean idle = node.managed() && node.available() && node.running() == 0 && !state.getDraining().containsKey(node.nodeId());
            if (idle) state.getIdleSince().putIfAbsent(node.nodeId(), now);
            else state.getIdleSince().remove(node.nodeId());
        }
    }

    /** The free room of the shard's available nodes, then the whole of each node launched for it. */
    private static List<Demand.Room> rooms(FrameworkSight.Shard shard, CapacityState state) {
        List<Demand.Room> rooms = new ArrayList<>();
        for (FrameworkSight.Node node : shard.nodes()) {
            if (node.available()) rooms.add(new Demand.Room(node.free(), node.spot()));
        }
        for (PendingLaunch launch : state.getLaunches().values()) {
            if (launch.getShard() == shard.shard()) rooms.add(new Demand.Room(launch.getCapacity(), launch.getSpot()));
        }
        return rooms;
    }

    private void launch(String frameworkId, int shard, List<Demand.Unmet> unmet, Prices prices, Budget budget, CapacityState state,
                        long now, List<CapacityDecision> decisions, StringBuilder held) {
        for (Demand.Unmet group : unmet) {
            Optional<Prices.Choice> choice = prices.cheapestFor(group.need, group.spotAllowed, group.count);
            if (choice.isEmpty()) {
                note(held, group.count + " attempts of " + Prices.words(group.need) + " in shard " + shard
                        + " fit no node class of the catalogue");
                continue;
            }
            Prices.Choice c = choice.get();
            long nodes = (group.count + c.perNode() - 1) / c.perNode();
            for (long i = 0; i < nodes; i++) {
                String limit = budget.refuses(c.pricePerHour(), settings);
                if (limit != null) {
                    note(held, "launching for " + group.count + " attempts of " + Prices.words(group.need) + " in shard " + shard
                            + " stopped at " + limit);
                    return;
                }
                budget.take(c.pricePerHour());
                String nodeId = nextNodeId(frameworkId, c.nodeClass().getName(), shard, state);
                state.getLaunches().put(nodeId, new PendingLaunch(c.nodeClass().getName(), c.spot(), c.nodeClass().getCapacity(),
                        c.pricePerHour(), shard, now));
                state.setLastLaunchAt(now);
                decisions.add(decision(frameworkId, CapacityAction.LAUNCH, nodeId, now,
                        group.count + " attempts of " + Prices.words(group.need) + " have waited in shard " + shard + " since "
                                + (now - state.getDemandSince()) / 1000 + " s ago with no room; " + c.nodeClass().getName()
                                + (c.spot() ? " on spot" : " on demand") + " holds " + c.perNode() + " of them for "
                                + String.format("%.4f", c.pricePerHour()) + " an hour, the cheapest way to hold them")
                        .setNodeClass(c.nodeClass().getName()).setSpot(c.spot()).setCapacity(c.nodeClass().getCapacity()).build());
            }
        }
    }

    private void drainIdle(String frameworkId, Map<String, FrameworkSight.Node> live, CapacityState state, long now,
                           List<CapacityDecision> decisions) {
        if (state.getLastLaunchAt() != null && now - state.getLastLaunchAt() < settings.drainCoolDown().toMillis()) return;
        for (Map.Entry<String, Long> idle : new ArrayList<>(state.getIdleSince().entrySet())) {
            long seconds = (now - idle.getValue()) / 1000;
            if (now - idle.getValue() < settings.idleBeforeDrain().toMillis()) continue;
            FrameworkSight.Node node = live.get(idle.getKey());
            state.getDraining().put(node.nodeId(), now);
            state.getIdleSince().remove(node.nodeId());
            decisions.add(decision(frameworkId, CapacityAction.DRAIN, node.nodeId(), now, "ran nothing for " + seconds
                    + " s and nothing waits: returned (idle-before-drain " + settings.idleBeforeDrain().toSeconds() + " s)")
                    .setNodeClass(node.nodeClass()).setSpot(node.spot()).setAssignmentPartition(node.assignmentPartition()).build());
        }
    }

    /** The next node id of the class that lands in the shard: ids are tried in order, so a replay picks the same. */
    private String nextNodeId(String frameworkId, String nodeClass, int shard, CapacityState state) {
        while (true) {
            long n = state.getSequence() + 1;
            state.setSequence(n);
            String id = frameworkId + "-" + nodeClass + "-" + n;
            if (shards.shardOf(id) == shard) return id;
        }
    }

    private static double spend(Map<String, FrameworkSight.Node> live, CapacityState state, Prices prices) {
        double spend = 0;
        for (FrameworkSight.Node node : live.values()) spend += prices.of(node.nodeClass(), node.spot());
        for (PendingLaunch launch : state.getLaunches().values()) spend += launch.getPricePerHour();
        return spend;
    }

    private static CapacityDecision.Builder decision(String frameworkId, CapacityAction action, String nodeId, long now, String reason) {
        return CapacityDecision.newBuilder().setDecisionId(frameworkId + "/" + nodeId + "/" + action).setFrameworkId(frameworkId)
                .setAction(action).setNodeId(nodeId).setReason(reason).setAt(now);
    }

    private static void note(StringBuilder held, String what) {
        if (!held.isEmpty()) held.append("; ");
        held.append(what);
    }

    /** Nodes and spend so far, against the limits. */
    private static final class Budget {
        int nodes;
        double perHour;

        Budget(int nodes, double perHour) {
            this.nodes = nodes;
            this.perHour = perHour;
        }

        String refuses(double price, ScalerSettings settings) {
            if (nodes + 1 > settings.maxNodes()) return "the limit of " + settings.maxNodes() + " nodes (max-nodes)";
            if (perHour + price > settings.maxSpendPerHour() + 1e-9) {
                return String.format("the limit of %.4f an hour (max-spend-per-hour; %.4f spent)", settings.maxSpendPerHour(), perHour);
            }
            return null;
        }

        void take(double price) {
            nodes++;
            perHour += price;
        }
    }
}
