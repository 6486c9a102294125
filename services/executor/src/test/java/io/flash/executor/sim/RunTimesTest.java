package io.flash.executor.sim;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class RunTimesTest {

    private static long[] draw(String spec, int n) {
        RunTimes times = RunTimes.parse(spec);
        Random random = new Random(42);
        long[] ms = new long[n];
        for (int i = 0; i < n; i++) ms[i] = times.next(random).toMillis();
        return ms;
    }

    @Test
    void fixedIsAlwaysTheSame() {
        assertTrue(Arrays.stream(draw("fixed:1.5s", 100)).allMatch(ms -> ms == 1500));
        assertEquals(Duration.ZERO, RunTimes.parse("fixed:0ms").next(new Random()));
    }

    @Test
    void uniformStaysInItsRange() {
        long[] ms = draw("uniform:100ms..2s", 10_000);
        assertTrue(Arrays.stream(ms).allMatch(v -> v >= 100 && v <= 2000));
        double mean = Arrays.stream(ms).average().orElseThrow();
        assertEquals(1050, mean, 30);
    }

    @Test
    void exponentialHasItsMean() {
        assertEquals(30_000, Arrays.stream(draw("exp:30s", 20_000)).average().orElseThrow(), 900);
    }

    @Test
    void lognormalHasItsMedian() {
        long[] ms = draw("lognormal:1m,0.8", 20_001);
        Arrays.sort(ms);
        assertEquals(60_000, ms[ms.length / 2], 2_500);
    }

    @Test
    void badSpecsSayWhatIsExpected() {
        var e = assertThrows(IllegalArgumentException.class, () -> RunTimes.parse("gamma:1s"));
        assertTrue(e.getMessage().contains("unknown kind 'gamma'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RunTimes.parse("fixed:10"));
        assertTrue(e.getMessage().contains("needs a unit"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RunTimes.parse("uniform:2s..1s"));
        assertTrue(e.getMessage().contains("MAX is below MIN"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RunTimes.parse("2s"));
        assertTrue(e.getMessage().contains("kind:parameters"), e.getMessage());
    }
}
