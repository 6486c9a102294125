package io.flash.common.streams;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Tells a processor when a record arrives on a quiet input, so that it asks Kafka Streams to
 * commit what the record caused at once ({@code ProcessorContext.commit()}: after the current
 * loop) instead of at the next {@code commit.interval.ms}. Under exactly-once nothing a processor
 * forwards is read downstream before its commit, so each hop of a task's way (framework shard →
 * planner → dispatcher → framework shard) otherwise waits half an interval on average; on a quiet
 * platform, as between the levels of a pipeline, that wait is most of a level's cost.
 *
 * <p>Quiet means few records lately: at most {@link #DEFAULT_AT_MOST} arrived within the last
 * {@link #DEFAULT_WINDOW}, this one included (an envelope counts as the items it carries), so early
 * commits come at most that often. The window is longer than the commit interval because under
 * exactly-once records come in bursts, one per upstream commit: judged by the gap before a record
 * (by arrival or by the records' timestamps), every burst of a loaded platform looked quiet and
 * earned a commit of its own, which measured as a loss at half load. Counted over the window, a
 * platform with any load is not quiet.
 *
 * <p>One is shared by all of a service instance's stream tasks: a commit is the stream thread's,
 * for all its tasks, and a partition's share of a moderate load can look quiet on its own.
 */
public final class QuietInput {

    public static final Duration DEFAULT_WINDOW = Duration.ofMillis(200);
    public static final int DEFAULT_AT_MOST = 2;

    private final long windowMillis;
    private final int atMost;
    private final Deque<Long> recent = new ArrayDeque<>();
    private boolean quiet;

    public QuietInput(Duration window, int atMost) {
        this.windowMillis = window.toMillis();
        this.atMost = atMost;
    }

    public static QuietInput defaults() {
        return new QuietInput(DEFAULT_WINDOW, DEFAULT_AT_MOST);
    }

    /** A record arrived at {@code now} (ms, the processor's clock): whether to commit what it causes at once. */
    public boolean arrived(long now) {
        return arrived(now, 1);
    }

    /**
     * A record carrying {@code items} (an envelope's attempts) arrived at {@code now}: it counts as
     * that many, since a loaded upstream sends few envelopes, each of many.
     */
    public synchronized boolean arrived(long now, int items) {
        while (!recent.isEmpty() && recent.peekFirst() <= now - windowMillis) recent.pollFirst();
        for (int i = 0; i < Math.min(Math.max(items, 1), atMost + 1); i++) recent.addLast(now);
        while (recent.size() > atMost + 1) recent.pollFirst(); // the latest atMost + 1 tell whether there were more
        quiet = recent.size() <= atMost;
        return quiet;
    }

    /** Whether the latest record arrived on a quiet input (false before any). */
    public synchronized boolean quiet() {
        return quiet;
    }
}
