package io.flash.executor.attempt;

import io.flash.executor.agent.RunningAttempts;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.NodeHeartbeat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class StuckContainersTest {

    private final NodeSettings node = new NodeSettings("n1", "ecs", new Capacity(4.0, 8L << 30, 0L, 0), DiskType.SSD, true, Map.of(),
            Duration.ofSeconds(2), Duration.ofMinutes(1), 20, Path.of("/sys/fs/cgroup"), Duration.ofSeconds(1), Path.of("/tmp"),
            65536, 1 << 20, null, 0L, new NodeSettings.Sandbox(128, Duration.ofSeconds(30)), Path.of("/tmp/shared"), "");

    @Test
    void aNodeWithAContainerTheEngineCannotRemoveOffersNothingUntilItIsGone() {
        StuckContainers stuck = new StuckContainers();
        RunningAttempts running = new RunningAttempts();
        assertNull(stuck.unhealthyReason());
        assertEquals(4.0, running.heartbeat(node, List.of(), 0, 1L, stuck.unhealthyReason()).getFree().getCpu());

        stuck.add("c1", "a1", "the engine did not stop the container within 30 s");
        NodeHeartbeat sick = running.heartbeat(node, List.of(), 0, 1L, stuck.unhealthyReason());
        assertEquals(new Capacity(0.0, 0L, 0L, 0), sick.getFree());
        assertTrue(sick.getUnhealthy().contains("c1") && sick.getUnhealthy().contains("within 30 s"), sick.getUnhealthy());

        Set<String> removable = ConcurrentHashMap.newKeySet();
        stuck.sweep(id -> {
            if (!removable.contains(id)) throw new IllegalStateException("still refused");
        });
        assertEquals(1, stuck.size(), "a refused removal keeps it");
        removable.add("c1");
        stuck.sweep(id -> {
            if (!removable.contains(id)) throw new IllegalStateException("still refused");
        });
        assertEquals(0, stuck.size());
        assertNull(running.heartbeat(node, List.of(), 0, 1L, stuck.unhealthyReason()).getUnhealthy());
    }
}
