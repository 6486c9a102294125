package io.flash.common.streams;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class QuietInputTest {

    @Test
    void aRecordIsQuietWhileAtMostTwoArrivedWithinTheWindow() {
        QuietInput input = new QuietInput(Duration.ofMillis(200), 2);
        assertFalse(input.quiet(), "nothing arrived yet");
        assertTrue(input.arrived(1_000), "the first record");
        assertTrue(input.arrived(1_080), "the second within 200 ms");
        assertFalse(input.arrived(1_100), "the third");
        assertFalse(input.quiet());
        assertTrue(input.arrived(1_290), "1,000 and 1,080 have left the window: 1,100 and this one");
    }

    /** The case that made commits pile up: under exactly-once a loaded processor reads in bursts, one per upstream commit. */
    @Test
    void burstsOfALoadedPlatformAreNotQuietHoweverFarApart() {
        QuietInput input = QuietInput.defaults();
        int quiet = 0;
        for (long burstAt = 0; burstAt < 10_000; burstAt += 100) { // a burst each 100 ms commit, 3 to 30 records each
            for (int i = 0; i < 3 + burstAt % 28; i++) if (input.arrived(burstAt + i / 10)) quiet++;
        }
        assertEquals(2, quiet, "the first two records only");
    }

    /** At full load the planner sends few envelopes, each of many attempts: they count as what they carry. */
    @Test
    void anEnvelopeCountsAsTheItemsItCarries() {
        QuietInput input = QuietInput.defaults();
        assertFalse(input.arrived(0, 1_000));
        assertFalse(input.arrived(150, 3), "the envelope before is still within the window");
        assertTrue(new QuietInput(Duration.ofMillis(200), 2).arrived(0, 2));
        assertTrue(input.arrived(1_000, 1), "a sparse input again");
    }

    /** Whatever the input, early commits stay at most two a window. */
    @Test
    void neverMoreThanTwoQuietRecordsWithinAWindow() {
        Random random = new Random(32);
        for (int round = 0; round < 500; round++) {
            QuietInput input = QuietInput.defaults();
            List<Long> quiet = new ArrayList<>();
            long now = 0;
            for (int i = 0; i < 2_000; i++) {
                now += random.nextInt(round % 10 == 0 ? 400 : 150);
                if (input.arrived(now)) quiet.add(now);
            }
            for (int i = 2; i < quiet.size(); i++) {
                assertTrue(quiet.get(i) - quiet.get(i - 2) >= QuietInput.DEFAULT_WINDOW.toMillis(), "round " + round + " at " + quiet.get(i));
            }
            assertFalse(quiet.isEmpty(), "round " + round + ": a sparse input is quiet sometimes");
        }
    }
}
