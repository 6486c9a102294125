package io.flash.common.cost;

import io.flash.schema.Capacity;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskEventType;

/**
 * The one formula of what compute costs (docs/cost.md), used by every framework, the planner, the
 * CLI and the console:
 * <pre>
 *   attempt cost = node price per hour × run time in hours × dominant share of the node
 *   dominant share = max over cpu, memory, disk and gpus of (the attempt's / the node's), at most 1
 * </pre>
 * The price is the node class's on-demand or spot price. Who pays: the user for what their task
 * did (a success, the program's own failure, a cancel); the platform for what it lost (a node, a
 * framework, an engine, a preemption, a spot reclaim).
 */
public final class Costs {

    private static final double MILLIS_PER_HOUR = 3_600_000.0;

    private Costs() {
    }

    /** The largest fraction of any one resource of the node the attempt holds; 1 at most. */
    public static double dominantShare(Capacity attempt, Capacity node) {
        double share = Math.max(Math.max(fraction(attempt.getCpu(), node.getCpu()),
                        fraction(attempt.getMemoryBytes(), node.getMemoryBytes())),
                Math.max(fraction(attempt.getDiskBytes(), node.getDiskBytes()), fraction(attempt.getGpus(), node.getGpus())));
        return Math.min(1.0, share);
    }

    /** What an attempt costs per hour of run time on a node of this price. */
    public static double perHour(double nodePricePerHour, Capacity attempt, Capacity node) {
        return nodePricePerHour * dominantShare(attempt, node);
    }

    /** What an attempt cost that ran from {@code startedAt} to {@code endedAt} (epoch millis). */
    public static double of(double perHour, long startedAt, long endedAt) {
        return perHour * Math.max(0, endedAt - startedAt) / MILLIS_PER_HOUR;
    }

    /** Whether an attempt that ended this way is the platform's loss rather than the user's bill. */
    public static boolean platformPays(TaskEventType ending, FailureClass cause) {
        if (ending == TaskEventType.LOST) return true;
        if (cause == null) return false;
        return switch (cause) {
            case INFRASTRUCTURE, NODE_LOST, FRAMEWORK_LOST, PREEMPTED, SPOT_RECLAIMED, UNSCHEDULABLE, UNKNOWN -> true;
            case USER, OOM_KILLED, TIMEOUT, CANCELLED -> false;
        };
    }

    private static double fraction(double used, double total) {
        return total <= 0 ? 0 : used / total;
    }
}
