package io.flash.bench;

import io.flash.autoscaler.core.CapacityPlanner;
import io.flash.autoscaler.core.FrameworkSight;
import io.flash.autoscaler.core.ScalerSettings;
import io.flash.schema.Capacity;
import io.flash.schema.CapacityState;
import io.flash.schema.NodeClass;
import io.flash.schema.QueuedShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long the autoscaler takes to decide a framework's capacity (docs/autoscaling.md), plain Java,
 * at 50 nodes with 1,000 queued attempts and at 5,000 nodes with 100,000, in the same run. Each
 * decision starts from a fresh state (as after a restart), so each one plans every launch again.
 * Usage: AutoscalerScale [rounds] [csv]
 */
public final class AutoscalerScale {

    private static final long GI = 1L << 30;
    private static final int SHARDS = 16;
    private static final List<NodeClass> CATALOGUE = List.of(
            nodeClass("standard-2", 2, 4, 0.085, 0.035), nodeClass("standard-4", 4, 8, 0.17, 0.07),
            nodeClass("standard-8", 8, 16, 0.34, 0.14));

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path csv = Path.of(args.length > 1 ? args[1] : "bench/target/autoscaler-scale.csv");
        measure(500, 10_000, rounds / 4); // warm-up
        Map<String, double[]> results = new LinkedHashMap<>();
        results.put("50 nodes, 1,000 queued", measure(50, 1_000, rounds));
        results.put("5,000 nodes, 100,000 queued", measure(5_000, 100_000, rounds));
        System.out.printf("%-30s %14s %14s %10s%n", "configuration", "median ms", "p99 ms", "launches");
        results.forEach((name, r) -> System.out.printf(Locale.ROOT, "%-30s %14.3f %14.3f %10.0f%n", name, r[0], r[1], r[2]));
        double[] small = results.get("50 nodes, 1,000 queued"), large = results.get("5,000 nodes, 100,000 queued");
        System.out.printf(Locale.ROOT, "ratio large / small: median %.2f%n", large[0] / small[0]);
        Files.createDirectories(csv.toAbsolutePath().getParent());
        List<String> lines = new ArrayList<>(List.of("configuration,median_ms,p99_ms,launches"));
        results.forEach((name, r) -> lines.add(String.format(Locale.ROOT, "\"%s\",%.3f,%.3f,%.0f", name, r[0], r[1], r[2])));
        Files.write(csv, lines);
    }

    /** @return median ms, p99 ms, launches decided */
    private static double[] measure(int nodes, int queued, int rounds) {
        FrameworkSight sight = sight(nodes, queued);
        ScalerSettings settings = new ScalerSettings(Duration.ZERO, Duration.ofMinutes(1), Duration.ofMinutes(3), Duration.ofSeconds(30),
                nodes + 2_000, 1_000_000);
        CapacityPlanner planner = new CapacityPlanner(settings, id -> Math.floorMod(id.hashCode(), SHARDS));
        List<Double> millis = new ArrayList<>();
        int launches = 0;
        for (int i = 0; i < rounds; i++) {
            CapacityState state = CapacityState.newBuilder().setFrameworkId("ecs").build();
            long t0 = System.nanoTime();
            launches = planner.decide(sight, state, 1_000).decisions().size();
            millis.add((System.nanoTime() - t0) / 1e6);
        }
        millis.sort(Double::compare);
        return new double[]{millis.get(millis.size() / 2), millis.get((int) Math.ceil(0.99 * millis.size()) - 1), launches};
    }

    /** Nodes spread over the shards, every one busy (no free room); the queue in 20 shapes per shard. */
    private static FrameworkSight sight(int nodes, int queued) {
        List<FrameworkSight.Shard> shards = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            List<FrameworkSight.Node> inShard = new ArrayList<>();
            for (int n = s; n < nodes; n += SHARDS) {
                inShard.add(new FrameworkSight.Node("node-" + n, "standard-4", n % 3 == 0, new Capacity(0.0, 0L, 0L, 0), 4, true, true, 0));
            }
            List<QueuedShape> waiting = new ArrayList<>();
            int perShape = queued / SHARDS / 20;
            for (int shape = 0; shape < 20; shape++) {
                waiting.add(new QueuedShape(new Capacity(0.25 * (1 + shape % 8), (256L << 20) * (1 + shape % 5), 0L, 0), perShape,
                        shape % 4 != 0));
            }
            shards.add(new FrameworkSight.Shard(s, waiting, inShard));
        }
        return new FrameworkSight("ecs", CATALOGUE, shards);
    }

    private static NodeClass nodeClass(String name, int cpu, int gib, double onDemand, double spot) {
        return NodeClass.newBuilder().setName(name).setCapacity(new Capacity((double) cpu, gib * GI, 0L, 0))
                .setOnDemandPerHour(onDemand).setSpotPerHour(spot).build();
    }
}
