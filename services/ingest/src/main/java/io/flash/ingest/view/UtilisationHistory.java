package io.flash.ingest.view;

import io.flash.schema.Capacity;
import io.flash.schema.FrameworkHeartbeat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Each framework's cpu and memory, used and total, over the last {@code keep}: from its shards'
 * heartbeats, one point per {@code step} (the latest heartbeat of every shard in that step, added
 * up). Held in memory; after a restart it holds what the compacted heartbeat topic still had.
 * Plain Java, fed by {@link StatusFeed}.
 */
public final class UtilisationHistory {

    /** One framework at one time: used and total cpu (cores) and memory (bytes) over all its shards. */
    public record Point(long at, double cpuUsed, double cpuTotal, long memoryUsed, long memoryTotal, int nodes) {
    }

    private record Sample(double cpuTotal, double cpuFree, long memoryTotal, long memoryFree, int nodes) {
    }

    private final long step;
    private final long keep;
    /** framework → step start → shard → its latest sample in that step. */
    private final Map<String, NavigableMap<Long, Map<Integer, Sample>>> frameworks = new HashMap<>();

    public UtilisationHistory(long stepMillis, long keepMillis) {
        this.step = stepMillis;
        this.keep = keepMillis;
    }

    public synchronized void record(FrameworkHeartbeat h) {
        Capacity total = h.getTotal(), free = h.getFree();
        long bucket = h.getSentAt() - Math.floorMod(h.getSentAt(), step);
        NavigableMap<Long, Map<Integer, Sample>> steps = frameworks.computeIfAbsent(h.getFrameworkId(), k -> new TreeMap<>());
        steps.computeIfAbsent(bucket, k -> new HashMap<>()).put(h.getShard(),
                new Sample(total.getCpu(), free.getCpu(), total.getMemoryBytes(), free.getMemoryBytes(), h.getNodes()));
        steps.headMap(steps.lastKey() - keep, false).clear();
    }

    /**
     * Per framework, one point per step since {@code since}. A shard that did not report in a step
     * counts with its sample of the step before (heartbeats come every few seconds, steps are longer).
     */
    public synchronized Map<String, List<Point>> since(long since) {
        Map<String, List<Point>> out = new TreeMap<>();
        frameworks.forEach((framework, steps) -> {
            List<Point> points = new ArrayList<>();
            Map<Integer, Sample> carried = new HashMap<>();
            for (Map.Entry<Long, Map<Integer, Sample>> e : steps.entrySet()) {
                carried.putAll(e.getValue());
                if (e.getKey() < since) continue;
                double cpuTotal = 0, cpuFree = 0;
                long memTotal = 0, memFree = 0;
                int nodes = 0;
                for (Sample s : carried.values()) {
                    cpuTotal += s.cpuTotal();
                    cpuFree += s.cpuFree();
                    memTotal += s.memoryTotal();
                    memFree += s.memoryFree();
                    nodes += s.nodes();
                }
                points.add(new Point(e.getKey(), Math.max(0, cpuTotal - cpuFree), cpuTotal, Math.max(0, memTotal - memFree), memTotal, nodes));
            }
            out.put(framework, points);
        });
        return out;
    }
}
