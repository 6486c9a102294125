package io.flash.ecs.core.preemption;

/**
 * Rate limit on preemption: at most {@code perMinute} attempts stopped per rolling minute, refilled
 * continuously, so a burst of high-priority work cannot churn the whole shard at once. Zero turns
 * preemption off.
 */
public final class PreemptionBudget {

    private final int perMinute;
    private double tokens;
    private long refilledAt;

    public PreemptionBudget(int perMinute, long now) {
        this.perMinute = perMinute;
        this.tokens = perMinute;
        this.refilledAt = now;
    }

    public boolean enabled() {
        return perMinute > 0;
    }

    /** Takes {@code count} tokens if there are that many. */
    public boolean tryTake(int count, long now) {
        tokens = Math.min(perMinute, tokens + (now - refilledAt) * perMinute / 60_000.0);
        refilledAt = now;
        if (count > tokens) return false;
        tokens -= count;
        return true;
    }
}
