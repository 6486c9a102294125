package io.flash.common.streams;

import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class OnDemandPunctuationTest {

    private final MockProcessorContext<String, String> context = new MockProcessorContext<>();
    private final OnDemandPunctuation punctuation = new OnDemandPunctuation(context, Duration.ofMillis(5), ts -> { });

    @Test
    void nothingIsScheduledUntilWorkAppearsAndOnceWhileItLasts() {
        assertTrue(context.scheduledPunctuators().isEmpty(), "an idle processor schedules nothing");
        punctuation.ensure();
        punctuation.ensure();
        List<CapturedPunctuator> scheduled = context.scheduledPunctuators();
        assertEquals(1, scheduled.size());
        assertEquals(Duration.ofMillis(5), scheduled.get(0).getInterval());
        assertEquals(PunctuationType.WALL_CLOCK_TIME, scheduled.get(0).getType());
        assertTrue(punctuation.scheduled());
    }

    @Test
    void stoppedItIsCancelledAndTheNextWorkSchedulesItAgain() {
        punctuation.ensure();
        punctuation.stop();
        assertTrue(context.scheduledPunctuators().get(0).cancelled());
        assertFalse(punctuation.scheduled());
        punctuation.stop(); // nothing to cancel
        punctuation.ensure();
        assertEquals(2, context.scheduledPunctuators().size());
        assertFalse(context.scheduledPunctuators().get(1).cancelled());
    }
}
