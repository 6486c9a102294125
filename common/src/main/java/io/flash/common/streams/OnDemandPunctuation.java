package io.flash.common.streams;

import java.time.Duration;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A wall-clock punctuation scheduled only while it has something to do: {@link #ensure} when work
 * for it appears, {@link #stop} (from the punctuation itself, too) when none is left.
 *
 * <p>Why not a schedule for good: Kafka Streams marks a task as needing a commit after every
 * wall-clock punctuation that ran, whatever it did ({@code StreamTask.maybePunctuateSystemTime}, 4.1),
 * so under exactly-once a processor with a short punctuation makes its idle service commit a
 * transaction at every commit interval: begin, offsets, end and a marker on the offsets partition,
 * for nothing (docs/performance.md, "What the broker is asked").
 */
public final class OnDemandPunctuation {

    private final ProcessorContext<?, ?> context;
    private final Duration interval;
    private final Punctuator action;
    private Cancellable scheduled;

    public OnDemandPunctuation(ProcessorContext<?, ?> context, Duration interval, Punctuator action) {
        this.context = context;
        this.interval = interval;
        this.action = action;
    }

    /** Schedules it (first run an interval from now) unless it is scheduled. */
    public void ensure() {
        if (scheduled == null) scheduled = context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, action);
    }

    /** Cancels it until the next {@link #ensure}. */
    public void stop() {
        if (scheduled == null) return;
        scheduled.cancel();
        scheduled = null;
    }

    public boolean scheduled() {
        return scheduled != null;
    }
}
