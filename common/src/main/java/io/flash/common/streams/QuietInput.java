package io.flash.common.streams;

import java.time.Duration;

/**
 * Tells a processor when a record arrives after a quiet spell, so that it asks Kafka Streams to
 * commit what the record caused at once ({@code ProcessorContext.commit()}: after the current
 * loop) instead of at the next {@code commit.interval.ms}. Under exactly-once nothing a processor
 * forwards is read downstream before its commit, so each hop of a task's way (framework shard →
 * planner → dispatcher → framework shard) otherwise waits half an interval on average; on a quiet
 * platform, as between the levels of a pipeline, that wait is most of a level's cost. Under load
 * records arrive closer together than the spell and commits stay on the interval, so the early
 * commits are bounded at one per spell and come only when there is spare time for them.
 */
public final class QuietInput {

    /** Records apart by at least this are a quiet input: at most 50 early commits a second. */
    public static final Duration DEFAULT_SPELL = Duration.ofMillis(20);

    private final long spellMillis;
    private long lastArrival = Long.MIN_VALUE;
    private boolean quiet;

    public QuietInput(Duration spell) {
        this.spellMillis = spell.toMillis();
    }

    public static QuietInput defaults() {
        return new QuietInput(DEFAULT_SPELL);
    }

    /** A record arrived at {@code now} (ms): whether the input had been quiet for a spell before it. */
    public boolean arrived(long now) {
        quiet = lastArrival == Long.MIN_VALUE || now - lastArrival >= spellMillis;
        lastArrival = now;
        return quiet;
    }

    /** Whether the latest record arrived after a quiet spell (false before any). */
    public boolean quiet() {
        return quiet;
    }
}
