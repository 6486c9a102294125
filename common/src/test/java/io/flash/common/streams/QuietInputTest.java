package io.flash.common.streams;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

class QuietInputTest {

    @Test
    void aRecordAfterASpellIsQuietOneCloseBehindAnotherIsNot() {
        QuietInput input = new QuietInput(Duration.ofMillis(20));
        assertFalse(input.quiet(), "nothing arrived yet");
        assertTrue(input.arrived(1_000), "the first record");
        assertFalse(input.arrived(1_005));
        assertFalse(input.arrived(1_024), "19 ms after the one before");
        assertTrue(input.arrived(1_044));
        assertTrue(input.quiet());
        assertFalse(input.arrived(1_044), "two records read together");
        assertFalse(input.quiet());
    }

    /** Early commits stay bounded by the spell whatever the rate, and under load there are none. */
    @Test
    void atAnySteadyRateThereIsAtMostOneQuietRecordASpell() {
        for (int gap = 1; gap <= 60; gap++) {
            QuietInput input = QuietInput.defaults();
            int quiet = 0;
            for (long t = 0; t < 10_000; t += gap) if (input.arrived(t)) quiet++;
            assertTrue(quiet <= 10_000 / QuietInput.DEFAULT_SPELL.toMillis() + 1, gap + " ms apart: " + quiet);
            if (gap < QuietInput.DEFAULT_SPELL.toMillis()) assertEquals(1, quiet, gap + " ms apart is load: only the first");
        }
    }
}
