package io.flash.common.framework;

import io.flash.common.events.HoldReasons;

import java.util.HashMap;
import java.util.Map;

/**
 * Why each waiting attempt waits, so the planner hears a reason once: a HELD event is due only when
 * the reason changes in words ({@link HoldReasons}: counts and sizes that move with every
 * heartbeat are no news). Kept in memory: after a restart each waiting attempt is told once again.
 */
public final class HoldNotices {

    private final Map<String, String> lastReason = new HashMap<>();

    /** @return whether a HELD event with this reason is due (it is then remembered as told) */
    public boolean due(String attemptId, String reason) {
        String previous = lastReason.put(attemptId, reason);
        return !reason.equals(previous) && !HoldReasons.sameInWords(previous, reason);
    }

    /** Whether the attempt has been told it waits (it was held here since it last moved). */
    public boolean told(String attemptId) {
        return lastReason.containsKey(attemptId);
    }

    /** The attempt no longer waits here (placed, cancelled, fenced). */
    public void forget(String attemptId) {
        lastReason.remove(attemptId);
    }
}
