package io.flash.ecs.core.placement;

import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.*;

/**
 * Level 2: chooses a node for an attempt by best fit over every resource dimension — the node that
 * would be left with the least free room, so large gaps stay open for large tasks — preferring nodes
 * that already hold the image. Says why when no node fits.
 */
public final class BinPacker {

    /** The chosen node, or null with the reason every node was passed over. */
    public record Choice(String nodeId, String reason) {
    }

    private static final double IMAGE_PRESENT_BONUS = 0.05;
    /** How many fitting nodes, tightest in cpu first, are scored before choosing. */
    static final int CANDIDATES = 32;

    /**
     * Best fit among the first {@link #CANDIDATES} nodes that fit, taken from the index tightest in
     * cpu first — a bounded amount of work however many nodes the shard has. When none fits, every
     * node is looked at once to say why.
     */
    public Choice place(TaskDefinition task, NodeIndex index, Collection<NodeRecord> all) {
        String best = null;
        double bestScore = Double.MAX_VALUE;
        int fits = 0;
        for (NodeRecord node : index.withFreeCpu(task.getResources().getCpu())) {
            if (unfit(task, node) != null) continue;
            double score = score(task, node);
            if (best == null || score < bestScore || (score == bestScore && node.getHeartbeat().getNodeId().compareTo(best) < 0)) {
                bestScore = score;
                best = node.getHeartbeat().getNodeId();
            }
            if (++fits == CANDIDATES) break;
        }
        return best != null ? new Choice(best, null) : place(task, all);
    }

    /** Best fit over every node given. */
    public Choice place(TaskDefinition task, Collection<NodeRecord> nodes) {
        String best = null;
        double bestScore = Double.MAX_VALUE;
        Map<String, Integer> rejections = new TreeMap<>();
        for (NodeRecord node : nodes) {
            String why = unfit(task, node);
            if (why != null) {
                rejections.merge(why, 1, Integer::sum);
                continue;
            }
            double score = score(task, node);
            if (best == null || score < bestScore || (score == bestScore && node.getHeartbeat().getNodeId().compareTo(best) < 0)) {
                bestScore = score;
                best = node.getHeartbeat().getNodeId();
            }
        }
        if (best != null) {
            return new Choice(best, null);
        }
        if (rejections.isEmpty()) {
            return new Choice(null, "no live node in this shard");
        }
        StringJoiner reason = new StringJoiner("; ", nodes.size() + (nodes.size() == 1 ? " node: " : " nodes: "), "");
        rejections.forEach((why, count) -> reason.add(count + " " + why));
        return new Choice(null, reason.toString());
    }

    /** Lower is a tighter fit: the free share left in every dimension after placing, less a bonus for a present image. */
    private static double score(TaskDefinition task, NodeRecord node) {
        Capacity total = node.getHeartbeat().getTotal();
        Capacity left = Resources.minus(Resources.minus(total, node.getAllocated()), task.getResources());
        double score = share(left.getCpu(), total.getCpu()) + share(left.getMemoryBytes(), total.getMemoryBytes())
                + share(left.getDiskBytes(), total.getDiskBytes()) + share(left.getGpus(), total.getGpus());
        return node.getHeartbeat().getImages().contains(task.getImage()) ? score - IMAGE_PRESENT_BONUS : score;
    }

    /** Whether the node could run the task if nothing else ran on it (what preemption can make room on). */
    public static boolean couldEverTake(TaskDefinition task, NodeRecord node) {
        return neverFits(task, node) == null;
    }

    /** Why the node cannot take the task now, or null. */
    static String unfit(TaskDefinition task, NodeRecord node) {
        String never = neverFits(task, node);
        if (never != null) {
            return never;
        }
        if (node.getHeartbeat().getUnhealthy() != null) {
            return "are unhealthy (" + node.getHeartbeat().getUnhealthy() + ")";
        }
        Capacity need = task.getResources();
        Capacity free = Resources.minus(node.getHeartbeat().getTotal(), node.getAllocated());
        if (need.getCpu() > free.getCpu() + 1e-9) return "lack free cpu";
        if (need.getMemoryBytes() > free.getMemoryBytes()) return "lack free memory";
        if (need.getDiskBytes() > free.getDiskBytes()) return "lack free disk";
        if (need.getGpus() > free.getGpus()) return "lack free gpus";
        return null;
    }

    private static String neverFits(TaskDefinition task, NodeRecord node) {
        if (node.getLost()) {
            return "lost";
        }
        NodeHeartbeat hb = node.getHeartbeat();
        if (task.getDiskType() != DiskType.ANY && hb.getDiskType() != task.getDiskType()) {
            return "lack disk type " + task.getDiskType().name().toLowerCase(Locale.ROOT);
        }
        if (task.getNetwork() == NetworkMode.BRIDGE && !hb.getNetwork()) {
            return "offer no network";
        }
        if (hb.getSpot() && !task.getSpotAllowed()) {
            return "are spot capacity, which this attempt may not use (spot: never, or reclaimed too often)";
        }
        for (var label : task.getNodeLabels().entrySet()) {
            if (!label.getValue().equals(hb.getLabels().get(label.getKey()))) {
                return "lack label " + label.getKey() + "=" + label.getValue();
            }
        }
        Capacity need = task.getResources();
        Capacity total = hb.getTotal();
        if (!Resources.fits(need, total)) {
            return "are too small in total";
        }
        return null;
    }

    private static double share(double left, double total) {
        return total <= 0 ? 0 : left / total;
    }
}
