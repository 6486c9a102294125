package io.flash.executor.sim;

import io.flash.executor.agent.RunningAttempts;
import io.flash.executor.attempt.NodeSettings;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** A simulated node on its way out leaves as a real one does: drained once idle, reclaimed when its notice runs out. */
class SimNodeTest {

    private final SimNode node = new SimNode(new NodeSettings("sim-1", "ecs", new Capacity(4.0, 8L << 30, 0L, 0), DiskType.SSD, true,
            Map.of(), Duration.ofSeconds(2), Duration.ofMinutes(1), 20, Path.of("/sys/fs/cgroup"), Duration.ofSeconds(5), Path.of("/tmp"),
            65536, 1 << 20, null, 0, new NodeSettings.Sandbox(128, Duration.ofSeconds(10)), Path.of("/tmp"), ""), 0);

    @Test
    void aDrainedNodeTakesNoWorkAndLeavesOnlyOnceIdle() {
        node.running.claim("a.1", new RunningAttempts.Attempt("j", "t", new Capacity(1.0, 1L << 30, 0L, 0)));
        assertNull(node.unavailable());
        node.drain("idle 20 s");
        assertTrue(node.unavailable().startsWith("draining (idle 20 s)"), "its heartbeat says why it takes no work");
        assertFalse(node.drainedAndIdle(), "it still runs a.1");
        node.running.release("a.1");
        assertTrue(node.drainedAndIdle());
        assertFalse(node.reclaimDue(Long.MAX_VALUE), "a drain stops nothing");
    }

    @Test
    void aReclaimedNodeIsDueAtTheEarliestNoticeAndDoesNotLeaveAsADrainedOne() {
        node.reclaim(10_000, "first");
        node.reclaim(20_000, "later");
        assertFalse(node.reclaimDue(9_999));
        assertTrue(node.reclaimDue(10_000), "a later notice never moves the deadline back");
        assertTrue(node.unavailable().contains("spot capacity reclaimed (first)"));
        assertFalse(node.drainedAndIdle(), "a reclaimed node leaves when its notice runs out, not when idle");
    }
}
