package io.flash.common.streams;

import java.time.Duration;

/**
 * Tells a processor when a record arrives on a quiet input, so that it asks Kafka Streams to
 * commit what the record caused at once ({@code ProcessorContext.commit()}: after the current
 * loop) instead of at the next {@code commit.interval.ms}. Under exactly-once nothing a processor
 * forwards is read downstream before its commit, so each hop of a task's way (framework shard →
 * planner → dispatcher → framework shard) otherwise waits half an interval on average; on a quiet
 * platform, as between the levels of a pipeline, that wait is most of a level's cost.
 *
 * <p>Quiet is judged by the records' own timestamps (when they were made upstream), not by when
 * this processor got to them: a loaded processor takes records in bursts, with its own commits
 * between them, and judged by its wall clock its input would look quiet exactly when it is
 * busiest. A record is quiet when it was made at least a spell after the one before it, and is
 * fresh (made within {@link #FRESH} — a processor catching up on old records commits on the
 * interval); and early commits come at most once a spell of wall-clock time, whatever the input.
 *
 * <p>One is shared by all of a service instance's stream tasks: a commit is the stream thread's,
 * for all its tasks, and judged per task, inputs that are each sparse (a partition's share of a
 * moderate load) would add up to a commit every spell per partition while the service is busy.
 */
public final class QuietInput {

    /** Records made this far apart are a quiet input; early commits come at most once per spell. */
    public static final Duration DEFAULT_SPELL = Duration.ofMillis(20);
    /** A record made longer ago than this is caught up on, not waited for: it commits on the interval. */
    public static final Duration FRESH = Duration.ofSeconds(1);

    private final long spellMillis;
    private long lastMade = Long.MIN_VALUE;
    private long lastEarlyCommit = Long.MIN_VALUE;
    private boolean quiet;

    public QuietInput(Duration spell) {
        this.spellMillis = spell.toMillis();
    }

    public static QuietInput defaults() {
        return new QuietInput(DEFAULT_SPELL);
    }

    /**
     * A record made at {@code madeAt} (its timestamp) arrived at {@code now} (ms): whether to
     * commit what it causes at once.
     */
    public synchronized boolean arrived(long madeAt, long now) {
        boolean sparse = lastMade == Long.MIN_VALUE || madeAt - lastMade >= spellMillis;
        lastMade = Math.max(lastMade, madeAt); // several partitions in one task: a timestamp may go back
        quiet = sparse && now - madeAt <= FRESH.toMillis()
                && (lastEarlyCommit == Long.MIN_VALUE || now - lastEarlyCommit >= spellMillis);
        if (quiet) lastEarlyCommit = now;
        return quiet;
    }

    /** Whether the latest record arrived on a quiet input (false before any). */
    public synchronized boolean quiet() {
        return quiet;
    }
}
