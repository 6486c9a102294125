package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.FrameworkSight;
import io.flash.schema.CapacityDecision;
import io.flash.schema.CapacityState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the autoscaler sees and does, for /q/metrics: per framework and node class, the live nodes,
 * the idle ones and the launches not yet reported (gauges), and its decisions (a counter per action).
 */
final class CapacityMetrics {

    private final MeterRegistry registry;
    private final Map<String, AtomicInteger> gauges = new ConcurrentHashMap<>();

    CapacityMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void saw(FrameworkSight sight, CapacityState state) {
        Map<String, int[]> byClass = new HashMap<>();
        sight.catalogue().forEach(c -> byClass.put(c.getName(), new int[3]));
        for (FrameworkSight.Shard shard : sight.shards()) {
            for (FrameworkSight.Node node : shard.nodes()) {
                int[] n = byClass.computeIfAbsent(String.valueOf(node.nodeClass()), k -> new int[3]);
                n[0]++;
                if (node.running() == 0 && node.available()) n[1]++;
            }
        }
        state.getLaunches().values().forEach(l -> byClass.computeIfAbsent(l.getNodeClass(), k -> new int[3])[2]++);
        byClass.forEach((nodeClass, n) -> {
            gauge(sight.frameworkId(), nodeClass, "live").set(n[0]);
            gauge(sight.frameworkId(), nodeClass, "idle").set(n[1]);
            gauge(sight.frameworkId(), nodeClass, "launching").set(n[2]);
        });
    }

    void decided(CapacityDecision decision) {
        Counter.builder("flash_autoscaler_decisions").description("launches and drains decided")
                .tag("framework", decision.getFrameworkId()).tag("action", decision.getAction().name()).register(registry).increment();
    }

    private AtomicInteger gauge(String framework, String nodeClass, String state) {
        return gauges.computeIfAbsent(framework + "/" + nodeClass + "/" + state, k -> {
            AtomicInteger value = new AtomicInteger();
            Gauge.builder("flash_autoscaler_nodes", value, AtomicInteger::get).description("nodes of a class: live, idle, launching")
                    .tag("framework", framework).tag("class", nodeClass).tag("state", state).register(registry);
            return value;
        });
    }
}
