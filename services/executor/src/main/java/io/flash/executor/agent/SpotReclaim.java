package io.flash.executor.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A spot node's notice that its capacity is being taken back (docs/cost.md). From the notice the
 * node takes no new work (its heartbeat says why, so its framework places nothing there); when the
 * notice runs out, what still runs is lost as SPOT_RECLAIMED — the platform's loss, retried free —
 * and the node leaves. Decides only; the agent acts on it.
 */
final class SpotReclaim {

    /** How long the node waits for the attempts it stopped to be reported before it leaves anyway. */
    static final Duration REPORT_GRACE = Duration.ofSeconds(60);

    private record Notice(long leaveAt, String reason) {
    }

    private Notice notice;
    private long stoppedAt = -1;

    /** A notice; an earlier deadline wins over a later one, a later one never moves it back. */
    synchronized void notice(long leaveAt, String reason) {
        if (notice == null || leaveAt < notice.leaveAt()) notice = new Notice(leaveAt, reason);
    }

    synchronized boolean noticed() {
        return notice != null;
    }

    /** Why the node takes no work, while it has a notice. */
    synchronized Optional<String> unavailable() {
        return notice == null ? Optional.empty()
                : Optional.of("spot capacity reclaimed (" + notice.reason() + "): leaves at " + Instant.ofEpochMilli(notice.leaveAt()));
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

    /** Whether the node leaves now: its attempts are stopped and reported, or the grace for that is over. */
    synchronized boolean leaveNow(long now, int stillRunning) {
        return stoppedAt >= 0 && (stillRunning == 0 || now - stoppedAt >= REPORT_GRACE.toMillis());
    }
}
