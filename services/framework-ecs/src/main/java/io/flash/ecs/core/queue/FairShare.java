package io.flash.ecs.core.queue;

import io.flash.ecs.core.placement.Requirement;
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
     * own first-come-first-served line (one per requirement, merged by arrival).
     */
    public Pass pass(WaitingLines lines) {
        return new Pass(lines);
    }

    /**
     * One walk over the lines. {@link #skipGroup} passes over the rest of the group the last attempt
     * came from (they fit nowhere this pass either). The lines may lose the attempts already
     * returned while the walk goes on (placed ones leave the queue); nothing may join them meanwhile.
     */
    public final class Pass implements Iterator<TaskDispatch> {

        /** A group's place in this walk: the member to return next. */
        private static final class Cursor {
            final WaitingLines.Group group;
            Map.Entry<WaitingLines.Arrival, TaskDispatch> head;

            Cursor(WaitingLines.Group group) {
                this.group = group;
                this.head = group.members.firstEntry();
            }
        }

        private static final Comparator<Cursor> BY_ARRIVAL = Comparator.comparing(c -> c.head.getKey());

        private final Iterator<Map<String, Map<Requirement, WaitingLines.Group>>> levels;
        /** Each owner's groups at the current priority, the earliest head first. */
        private final Map<String, PriorityQueue<Cursor>> owners = new HashMap<>();
        private Cursor current;

        private Pass(WaitingLines lines) {
            levels = new ArrayList<>(lines.byPriority()).iterator();
        }

        @Override
        public boolean hasNext() {
            if (current != null) {
                current.head = current.group.members.higherEntry(current.head.getKey());
                if (current.head != null) owners.get(current.group.owner()).add(current);
                current = null;
            }
            owners.values().removeIf(PriorityQueue::isEmpty);
            while (owners.isEmpty() && levels.hasNext()) {
                levels.next().forEach((owner, groups) -> {
                    PriorityQueue<Cursor> line = new PriorityQueue<>(BY_ARRIVAL);
                    groups.values().forEach(group -> line.add(new Cursor(group)));
                    owners.put(owner, line);
                });
            }
            return !owners.isEmpty();
        }

        @Override
        public TaskDispatch next() {
            if (!hasNext()) throw new NoSuchElementException();
            PriorityQueue<Cursor> line = owners.entrySet().stream()
                    .min(Comparator.comparingDouble((Map.Entry<String, PriorityQueue<Cursor>> e) -> dominantShare(e.getKey()))
                            .thenComparing(e -> e.getValue().peek().head.getKey()))
                    .orElseThrow().getValue();
            current = line.poll();
            return current.head.getValue();
        }

        /** The group the last attempt returned came from. */
        public WaitingLines.Group group() {
            return current.group;
        }

        /** Passes over the rest of the last attempt's group. */
        public void skipGroup() {
            current = null;
        }
    }

    /**
     * The first {@code limit} attempt ids in the order they would be placed if room appeared for
     * each in turn: {@link #pass} with every pick counted as placed (so users alternate as they
     * would). What a waiting user is told as "position k"; an attempt too big for the room that
     * appears is passed over by smaller ones behind it, so a position is an order, not a promise.
     * Counts the picks into this instance: use a fresh one. O(limit × users), whatever waits.
     */
    public List<String> placementOrder(WaitingLines lines, int limit) {
        List<String> ids = new ArrayList<>(Math.min(limit, lines.size()));
        for (Iterator<TaskDispatch> it = pass(lines); it.hasNext() && ids.size() < limit; ) {
            TaskDispatch next = it.next();
            ids.add(next.getReady().getAttemptId());
            placed(next.getReady().getOwner(), next.getReady().getTask().getResources());
        }
        return ids;
    }

    /** The single next attempt to try (see {@link #pass}). */
    public Optional<TaskDispatch> next(Collection<TaskDispatch> waiting) {
        Iterator<TaskDispatch> it = pass(WaitingLines.of(waiting));
        return it.hasNext() ? Optional.of(it.next()) : Optional.empty();
    }
}
