package io.flash.executor.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A node on its way out, in one of two ways. A spot reclaim (docs/cost.md): from the notice the
 * node takes no new work (its heartbeat says why, so its framework places nothing there); when the
 * notice runs out, what still runs is lost as SPOT_RECLAIMED — the platform's loss, retried free —
 * and the node leaves. A drain (docs/autoscaling.md: the autoscaler returns an idle node): no new
 * work either, and the node leaves once what it runs has ended, stopping nothing. Decides only;
 * the agent acts on it.
 */
final class Leaving {

    /** How long the node waits for the attempts it stopped to be reported before it leaves anyway. */
    static final Duration REPORT_GRACE = Duration.ofSeconds(60);

    private record Notice(long leaveAt, String reason) {
    }

    private Notice notice;
    private String drain;
    private long stoppedAt = -1;

    /** Asked to drain: no new work; leave when idle. */
    synchronized void drain(String reason) {
        if (drain == null) drain = reason;
    }

    /** A notice; an earlier deadline wins over a later one, a later one never moves it back. */
    synchronized void notice(long leaveAt, String reason) {
        if (notice == null || leaveAt < notice.leaveAt()) notice = new Notice(leaveAt, reason);
    }

    synchronized boolean noticed() {
        return notice != null;
    }

    /** Why the node takes no work, while it is leaving. */
    synchronized Optional<String> unavailable() {
        if (notice != null) {
            return Optional.of("spot capacity reclaimed (" + notice.reason() + "): leaves at " + Instant.ofEpochMilli(notice.leaveAt()));
        }
        return drain == null ? Optional.empty() : Optional.of("draining (" + drain + "): leaves when what it runs has ended");
    }

    /** Whether the notice has run out and the running attempts are to be stopped now (true once). */
    synchronized boolean stopNow(long now) {
        if (notice == null || stoppedAt >= 0 || now < notice.leaveAt()) return false;
        stoppedAt = now;
        return true;
    }

    /** What the stopped attempts are told. */
    synchronized String lossReason() {
        return notice == null ? "" : "the spot node was reclaimed (" + notice.reason() + ")";
    }

    /**
     * Whether the node leaves now: reclaimed, once its stopped attempts are reported (or the grace
     * for that is over); drained, once it runs nothing.
     */
    synchronized boolean leaveNow(long now, int stillRunning) {
        if (stoppedAt >= 0) return stillRunning == 0 || now - stoppedAt >= REPORT_GRACE.toMillis();
        return drain != null && notice == null && stillRunning == 0;
    }
}
