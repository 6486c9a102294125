package io.flash.common.streams;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class QuietInputTest {

    @Test
    void aFreshRecordMadeASpellAfterTheOneBeforeIsQuiet() {
        QuietInput input = new QuietInput(Duration.ofMillis(20));
        assertFalse(input.quiet(), "nothing arrived yet");
        assertTrue(input.arrived(1_000, 1_002), "the first record");
        assertFalse(input.arrived(1_005, 1_006));
        assertFalse(input.arrived(1_024, 1_025), "made 19 ms after the one before");
        assertTrue(input.arrived(1_044, 1_046));
        assertTrue(input.quiet());
        assertFalse(input.arrived(1_044, 1_047), "made with the one before");
        assertFalse(input.quiet());
        assertFalse(input.arrived(1_000, 1_070), "made before the latest (another partition)");
        assertFalse(input.arrived(5_000, 6_500), "made 1.5 s ago: caught up on, not waited for");
        assertTrue(input.arrived(9_000, 9_001));
    }

    /** The case that made commits pile up: a busy processor reads dense records in bursts, its own commits between them. */
    @Test
    void recordsMadeCloseTogetherAreNotQuietHoweverLateTheyAreRead() {
        QuietInput input = QuietInput.defaults();
        input.arrived(0, 0);
        int quiet = 0;
        long made = 0;
        for (long burstAt = 50; burstAt < 10_000; burstAt += 50) { // read 50 ms apart, 25 records a burst
            for (int i = 0; i < 25; i++) if (input.arrived(made += 2, burstAt)) quiet++;
        }
        assertEquals(0, quiet);
    }

    /** Whatever the input, early commits stay at most one a spell. */
    @Test
    void neverTwoEarlyCommitsWithinASpell() {
        Random random = new Random(32);
        for (int round = 0; round < 500; round++) {
            QuietInput input = QuietInput.defaults();
            Deque<Long> early = new ArrayDeque<>();
            long now = 0, made = 0;
            for (int i = 0; i < 2_000; i++) {
                now += random.nextInt(40);
                made = Math.min(now, made + random.nextInt(80) - 10);
                if (input.arrived(made, now)) {
                    if (!early.isEmpty()) {
                        assertTrue(now - early.peekLast() >= QuietInput.DEFAULT_SPELL.toMillis(), "round " + round + " at " + now);
                    }
                    early.add(now);
                }
            }
            assertFalse(early.isEmpty(), "round " + round + ": a sparse input commits early sometimes");
        }
    }
}
