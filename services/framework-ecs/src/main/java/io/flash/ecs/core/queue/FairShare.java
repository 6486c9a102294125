package io.flash.ecs.core.queue;

import io.flash.schema.Capacity;
import io.flash.schema.TaskDispatch;

import java.util.*;

/**
 * Orders a shard's queue: higher priority first; within a priority, the user whose dominant share
 * (the largest fraction of the shard's cpu or memory they hold, counting what this round already
 * placed) is smallest goes next — dominant resource fairness; then first come, first served.
 */
public final class FairShare {

    private final Capacity total;
    private final Map<String, double[]> held = new HashMap<>();

    /**
     * @param total    the shard's capacity
     * @param byOwner  what each user's running attempts hold now
     */
    public FairShare(Capacity total, Map<String, Capacity> byOwner) {
        this.total = total;
        byOwner.forEach((owner, c) -> held.put(owner, new double[]{c.getCpu(), c.getMemoryBytes()}));
    }

    public double dominantShare(String owner) {
        double[] h = held.getOrDefault(owner, new double[2]);
        double cpu = total.getCpu() <= 0 ? 0 : h[0] / total.getCpu();
        double memory = total.getMemoryBytes() <= 0 ? 0 : h[1] / total.getMemoryBytes();
        return Math.max(cpu, memory);
    }

    /** Counts a placement, so the next pick sees the user's larger share. */
    public void placed(String owner, Capacity resources) {
        double[] h = held.computeIfAbsent(owner, k -> new double[2]);
        h[0] += resources.getCpu();
        h[1] += resources.getMemoryBytes();
    }

    /**
     * The waiting attempts in the order to try them, decided one at a time, so a {@link #placed}
     * between two steps moves that user back. O(users) per step: each user's attempts wait in their
     * own first-come-first-served line.
     */
    public Iterator<TaskDispatch> order(Collection<TaskDispatch> waiting) {
        TreeMap<Integer, Map<String, ArrayDeque<TaskDispatch>>> lines = new TreeMap<>(Comparator.reverseOrder());
        List<TaskDispatch> sorted = new ArrayList<>(waiting);
        sorted.sort(Comparator.comparingLong(TaskDispatch::getDispatchedAt));
        for (TaskDispatch d : sorted) {
            lines.computeIfAbsent(d.getReady().getPriority(), k -> new HashMap<>())
                    .computeIfAbsent(d.getReady().getOwner(), k -> new ArrayDeque<>()).add(d);
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                lines.values().removeIf(Map::isEmpty);
                return !lines.isEmpty();
            }

            @Override
            public TaskDispatch next() {
                if (!hasNext()) throw new NoSuchElementException();
                Map<String, ArrayDeque<TaskDispatch>> top = lines.firstEntry().getValue();
                String owner = top.entrySet().stream()
                        .min(Comparator.comparingDouble((Map.Entry<String, ArrayDeque<TaskDispatch>> e) -> dominantShare(e.getKey()))
                                .thenComparingLong(e -> e.getValue().peekFirst().getDispatchedAt()))
                        .orElseThrow().getKey();
                ArrayDeque<TaskDispatch> line = top.get(owner);
                TaskDispatch next = line.pollFirst();
                if (line.isEmpty()) top.remove(owner);
                return next;
            }
        };
    }

    /**
     * The first {@code limit} attempt ids in the order they would be placed if room appeared for
     * each in turn: {@link #order} with every pick counted as placed (so users alternate as they
     * would). What a waiting user is told as "position k"; an attempt too big for the room that
     * appears is passed over by smaller ones behind it, so a position is an order, not a promise.
     * Counts the picks into this instance: use a fresh one.
     */
    public List<String> placementOrder(Collection<TaskDispatch> waiting, int limit) {
        List<String> ids = new ArrayList<>(Math.min(limit, waiting.size()));
        for (Iterator<TaskDispatch> it = order(waiting); it.hasNext() && ids.size() < limit; ) {
            TaskDispatch next = it.next();
            ids.add(next.getReady().getAttemptId());
            placed(next.getReady().getOwner(), next.getReady().getTask().getResources());
        }
        return ids;
    }

    /** The single next attempt to try (see {@link #order}). */
    public Optional<TaskDispatch> next(Collection<TaskDispatch> waiting) {
        Iterator<TaskDispatch> it = order(waiting);
        return it.hasNext() ? Optional.of(it.next()) : Optional.empty();
    }
}
