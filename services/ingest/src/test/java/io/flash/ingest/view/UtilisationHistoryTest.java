package io.flash.ingest.view;

import io.flash.schema.Capacity;
import io.flash.schema.FrameworkHeartbeat;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class UtilisationHistoryTest {

    private static final long GIB = 1L << 30;

    private static FrameworkHeartbeat beat(String framework, int shard, long at, double cpuFree, long memFree) {
        Capacity total = new Capacity(4.0, 8 * GIB, 0L, 0);
        return FrameworkHeartbeat.newBuilder().setFrameworkId(framework).setShard(shard).setNodes(1).setTotal(total)
                .setFree(new Capacity(cpuFree, memFree, 0L, 0)).setLargestNodeFree(total).setLargestNodeTotal(total)
                .setDiskTypes(List.of()).setNetwork(false).setQueued(0).setAcceptLimit(1).setSentAt(at).build();
    }

    @Test
    void eachStepAddsUpTheLatestHeartbeatOfEveryShard() {
        UtilisationHistory history = new UtilisationHistory(10_000, 3600_000);
        history.record(beat("ecs", 0, 100_000, 4.0, 8 * GIB));
        history.record(beat("ecs", 1, 101_000, 3.0, 6 * GIB));
        history.record(beat("ecs", 0, 105_000, 2.0, 4 * GIB)); // same step: the later one counts
        history.record(beat("ecs", 1, 112_000, 1.0, 2 * GIB)); // shard 0 silent in this step: its last sample carries

        List<UtilisationHistory.Point> points = history.since(0).get("ecs");
        assertEquals(2, points.size());
        assertEquals(new UtilisationHistory.Point(100_000, 3.0, 8.0, 6 * GIB, 16 * GIB, 2), points.get(0));
        assertEquals(new UtilisationHistory.Point(110_000, 5.0, 8.0, 10 * GIB, 16 * GIB, 2), points.get(1));
        assertEquals(1, history.since(110_000).get("ecs").size());
    }

    @Test
    void whatIsOlderThanTheWindowIsForgotten() {
        UtilisationHistory history = new UtilisationHistory(1_000, 10_000);
        history.record(beat("ecs", 0, 0, 4.0, 8 * GIB));
        history.record(beat("slurm", 0, 5_000, 4.0, 8 * GIB));
        history.record(beat("ecs", 0, 20_000, 4.0, 8 * GIB));
        Map<String, List<UtilisationHistory.Point>> all = history.since(0);
        assertEquals(List.of(20_000L), all.get("ecs").stream().map(UtilisationHistory.Point::at).toList());
        assertEquals(1, all.get("slurm").size(), "each framework keeps its own window");
    }
}
