package io.flash.executor.attempt;

import io.flash.schema.FailureClass;

/**
 * Why the node stopped an attempt, and so how its end is reported: asked for (a cancel, a
 * preemption: CANCELLED, which the framework reads further) or lost with the node's capacity (a
 * spot reclaim: FAILED as SPOT_RECLAIMED, the platform's loss).
 */
public record Kill(String reason, FailureClass cause) {

    public static Kill asked(String reason) {
        return new Kill(reason, FailureClass.CANCELLED);
    }

    public static Kill reclaimed(String reason) {
        return new Kill(reason, FailureClass.SPOT_RECLAIMED);
    }
}
