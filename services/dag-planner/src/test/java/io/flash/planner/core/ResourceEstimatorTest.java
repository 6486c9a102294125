package io.flash.planner.core;

import io.flash.schema.ResourceEstimate;
import io.flash.schema.ResourceObservation;
import io.flash.schema.TaskDefinition;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.flash.common.testing.Samples.MIB;
import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

class ResourceEstimatorTest {

    private final ResourceEstimator estimator = new ResourceEstimator(10, 1.2, 16 * MIB);

    private static ResourceObservation observed(long peak, double cpuSeconds, long millis) {
        return ResourceObservation.newBuilder().setSignature("s").setPeakMemoryBytes(peak).setCpuSeconds(cpuSeconds)
                .setDurationMillis(millis).setAt(1L).build();
    }

    @Test
    void ninetiethPercentilePlusHeadroom() {
        ResourceEstimate e = null;
        for (int i = 1; i <= 10; i++) e = estimator.update(e, observed(i * 10 * MIB, 5.0, 10_000));
        assertEquals(10, e.getSamples());
        assertEquals((long) (90 * MIB * 1.2), e.getMemoryBytes(), "p90 of 10..100 Mi is 90 Mi");
        assertEquals(0.6, e.getCpu(), 1e-9, "0.5 cores used, plus 20 %");
    }

    @Test
    void aRunTooShortToTimeTeachesItsMemoryButNoCpu() {
        ResourceEstimate e = estimator.update(null, observed(100 * MIB, 0.8, 100)); // "8 cores": its times were rounded
        assertNull(e.getCpu(), "no cpu estimate from a tenth of a second");
        assertEquals((long) (100 * MIB * 1.2), e.getMemoryBytes());
        e = estimator.update(e, observed(100 * MIB, 6.0, 6_000));
        assertEquals(1.2, e.getCpu(), 1e-9, "one core over six seconds, plus 20 %");
        assertEquals(List.of(1.0), e.getRecentCpu());
    }

    @Test
    void keepsOnlyRecentRunsAndAFloor() {
        ResourceEstimate e = null;
        for (int i = 0; i < 10; i++) e = estimator.update(e, observed(1000 * MIB, 1.0, 1000));
        for (int i = 0; i < 10; i++) e = estimator.update(e, observed(MIB, 1.0, 1000));
        assertEquals(10, e.getRecentPeaks().size());
        assertEquals(16 * MIB, e.getMemoryBytes(), "old large runs aged out; the floor applies");
        assertEquals(20, e.getSamples());
    }

    @Test
    void theSignatureIsTheProgramNotTheJob() {
        TaskDefinition a = task("a"), b = task("b");
        b.setCommand(a.getCommand());
        assertEquals(ResourceEstimator.signature(a), ResourceEstimator.signature(b));
        b.setCommand(List.of("/bin/sh", "-c", "something else"));
        assertNotEquals(ResourceEstimator.signature(a), ResourceEstimator.signature(b));
    }
}
