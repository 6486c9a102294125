package io.flash.executor.sim;

import io.flash.executor.agent.RunningAttempts;
import io.flash.executor.attempt.NodeSettings;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;

/**
 * One simulated node: what it runs, and whether it is on its way out as a real node would be
 * (docs/autoscaling.md) — drained (no new work, leaves once idle) or reclaimed as spot capacity (no
 * new work from the notice, what still runs is lost as SPOT_RECLAIMED when it runs out).
 */
final class SimNode {

    final NodeSettings settings;
    final RunningAttempts running = new RunningAttempts();
    final Map<String, ScheduledFuture<?>> finishing = new ConcurrentHashMap<>();
    final int partition;
    private String leaving;
    private long leaveAt = -1;

    SimNode(NodeSettings settings, int partition) {
        this.settings = settings;
        this.partition = partition;
    }

    synchronized void drain(String reason) {
        if (leaving == null) leaving = "draining (" + reason + "): leaves when what it runs has ended";
    }

    /** A reclaim notice: the earlier deadline wins. */
    synchronized void reclaim(long at, String reason) {
        if (leaveAt < 0 || at < leaveAt) {
            leaveAt = at;
            leaving = "spot capacity reclaimed (" + reason + "): leaves at " + Instant.ofEpochMilli(at);
        }
    }

    /** Why the node takes no new work, or null. */
    synchronized String unavailable() {
        return leaving;
    }

    synchronized boolean reclaimDue(long now) {
        return leaveAt >= 0 && now >= leaveAt;
    }

    synchronized boolean leaving() {
        return leaving != null;
    }

    /** Drained and idle: it goes. */
    synchronized boolean drainedAndIdle() {
        return leaving != null && leaveAt < 0 && running.size() == 0;
    }
}
