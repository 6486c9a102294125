package io.flash.ecs.core.queue;

import io.flash.schema.Capacity;

import java.util.*;

/**
 * Optional per-queue quotas: the most of a shard's capacity (as a fraction of its cpu and of its
 * memory) the placed attempts of one queue may hold. A queue without a quota is unbounded.
 * Written {@code queue=fraction,...}, e.g. {@code batch=0.5,dev=0.25}.
 */
public final class QueueQuotas {

    private final Map<String, Double> limits;

    public QueueQuotas(Map<String, Double> limits) {
        this.limits = Map.copyOf(limits);
    }

    public static QueueQuotas none() {
        return new QueueQuotas(Map.of());
    }

    /** Parses the setting; a malformed entry is refused with what is wrong and an example. */
    public static QueueQuotas parse(String setting) {
        Map<String, Double> limits = new TreeMap<>();
        if (setting == null || setting.isBlank()) return none();
        for (String entry : setting.split(",")) {
            String[] parts = entry.trim().split("=");
            double fraction;
            try {
                fraction = parts.length == 2 ? Double.parseDouble(parts[1].trim()) : Double.NaN;
            } catch (NumberFormatException e) {
                fraction = Double.NaN;
            }
            if (parts.length != 2 || parts[0].isBlank() || !(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("flash.framework.quotas: '" + entry.trim()
                        + "' is not queue=fraction with a fraction in (0, 1], e.g. batch=0.5");
            }
            limits.put(parts[0].trim(), fraction);
        }
        return new QueueQuotas(limits);
    }

    /** Why placing {@code need} for {@code queue} would break its quota, or null when it may go. */
    public String refusal(String queue, Capacity need, Capacity queueHolds, Capacity shardTotal) {
        Double limit = limits.get(queue);
        if (limit == null) return null;
        double cpu = shardTotal.getCpu() <= 0 ? 0 : (queueHolds.getCpu() + need.getCpu()) / shardTotal.getCpu();
        double memory = shardTotal.getMemoryBytes() <= 0 ? 0
                : (double) (queueHolds.getMemoryBytes() + need.getMemoryBytes()) / shardTotal.getMemoryBytes();
        if (Math.max(cpu, memory) <= limit + 1e-9) return null;
        return String.format(Locale.ROOT, "queue %s is at its quota (%.0f%% of the shard; it holds %.0f%% of cpu and %.0f%% of memory)",
                queue, limit * 100, 100 * queueHolds.getCpu() / Math.max(shardTotal.getCpu(), 1e-9),
                100.0 * queueHolds.getMemoryBytes() / Math.max(shardTotal.getMemoryBytes(), 1));
    }
}
