package io.flash.planner.core;

import io.flash.common.cost.Costs;
import io.flash.schema.FailureClass;
import io.flash.schema.JobProgress;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskSummary;

/**
 * Puts what an ended attempt cost on its unit and its job, as the user's part or the platform's
 * ({@link Costs}): its price per hour, as its framework placed it, times the time from its start
 * to this end. An attempt that never started, or ran on an unpriced node, costs nothing.
 */
final class AttemptCharges {

    private AttemptCharges() {
    }

    /** The attempt's price per hour, told when its framework placed it. */
    static void placed(TaskSummary unit, TaskEvent placed) {
        unit.setCostPerHour(placed.getCostPerHour());
    }

    /** A framework that learns the node only when the attempt starts (a batch cluster's pod) tells the price then. */
    static void started(TaskSummary unit, TaskEvent started) {
        if (started.getCostPerHour() != null) unit.setCostPerHour(started.getCostPerHour());
    }

    /**
     * Charges the unit's current attempt, which ended with {@code end} for {@code cause} (null: succeeded).
     *
     * @param platformsMiss the attempt failed for the platform's own guess (a memory estimate too small)
     */
    static void ended(JobProgress job, TaskSummary unit, TaskEvent end, FailureClass cause, boolean platformsMiss) {
        if (unit.getCostPerHour() == null || unit.getStartedAt() == null) return;
        double cost = Costs.of(unit.getCostPerHour(), unit.getStartedAt(), end.getAt());
        if (platformsMiss || Costs.platformPays(end.getType(), cause)) {
            unit.setPlatformCost(unit.getPlatformCost() + cost);
            job.setPlatformCost(job.getPlatformCost() + cost);
        } else {
            unit.setUserCost(unit.getUserCost() + cost);
            job.setUserCost(job.getUserCost() + cost);
        }
    }

    /** A new attempt has no price until it is placed. */
    static void nextAttempt(TaskSummary unit) {
        unit.setCostPerHour(null);
    }
}
