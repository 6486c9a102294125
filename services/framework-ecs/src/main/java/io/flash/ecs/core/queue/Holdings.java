package io.flash.ecs.core.queue;

import io.flash.common.resources.Resources;
import io.flash.schema.Capacity;

import java.util.*;

/**
 * What the shard's placed attempts hold, kept up to date as attempts are placed and released, so
 * that fair share, quotas and preemption never rescan every placement on the scheduling path.
 */
public final class Holdings {

    /** One placed attempt as the policies see it. */
    public record Held(String attemptId, String owner, String queue, int priority, String nodeId, Capacity resources,
                       long placedAt, boolean preempting) {
    }

    private final Map<String, Held> byAttempt = new HashMap<>();
    private final Map<String, Map<String, Held>> byNode = new HashMap<>();
    private final Map<String, Capacity> byOwner = new HashMap<>();
    private final Map<String, Capacity> byQueue = new HashMap<>();
    private final TreeMap<Integer, Integer> priorities = new TreeMap<>();
    private int preempting;

    public void add(Held held) {
        remove(held.attemptId());
        byAttempt.put(held.attemptId(), held);
        byNode.computeIfAbsent(held.nodeId(), k -> new HashMap<>()).put(held.attemptId(), held);
        byOwner.merge(held.owner(), held.resources(), Resources::plus);
        byQueue.merge(held.queue(), held.resources(), Resources::plus);
        priorities.merge(held.priority(), 1, Integer::sum);
        if (held.preempting()) preempting++;
    }

    public void remove(String attemptId) {
        Held held = byAttempt.remove(attemptId);
        if (held == null) return;
        Map<String, Held> onNode = byNode.get(held.nodeId());
        onNode.remove(attemptId);
        if (onNode.isEmpty()) byNode.remove(held.nodeId());
        subtract(byOwner, held.owner(), held.resources());
        subtract(byQueue, held.queue(), held.resources());
        priorities.computeIfPresent(held.priority(), (p, n) -> n == 1 ? null : n - 1);
        if (held.preempting()) preempting--;
    }

    public void markPreempting(String attemptId) {
        Held held = byAttempt.get(attemptId);
        if (held != null && !held.preempting()) {
            add(new Held(held.attemptId(), held.owner(), held.queue(), held.priority(), held.nodeId(), held.resources(),
                    held.placedAt(), true));
        }
    }

    public Collection<Held> onNode(String nodeId) {
        return byNode.getOrDefault(nodeId, Map.of()).values();
    }

    public Map<String, Capacity> byOwner() {
        return Collections.unmodifiableMap(byOwner);
    }

    public Capacity ofQueue(String queue) {
        return byQueue.getOrDefault(queue, Resources.zero());
    }

    /** Whether any placed attempt has a priority below {@code priority} (something preemption could stop). */
    public boolean anyBelow(int priority) {
        return !priorities.isEmpty() && priorities.firstKey() < priority;
    }

    /** Whether any placed attempt is being stopped for another (its room is about to free up). */
    public boolean anyPreempting() {
        return preempting > 0;
    }

    public int size() {
        return byAttempt.size();
    }

    private static void subtract(Map<String, Capacity> totals, String key, Capacity resources) {
        Capacity left = Resources.minus(totals.getOrDefault(key, Resources.zero()), resources);
        if (left.getCpu() <= 1e-9 && left.getMemoryBytes() == 0 && left.getDiskBytes() == 0 && left.getGpus() == 0) {
            totals.remove(key);
        } else {
            totals.put(key, left);
        }
    }
}
