package io.flash.dispatcher.core.selection;

import io.flash.schema.Capacity;

import java.util.*;

/**
 * What the dispatcher sent to each framework shard that the shard's latest heartbeat may not show
 * yet. A dispatch counts against its shard until the shard has acknowledged it (reported it PLACED,
 * HELD, or anything later) and a heartbeat sent after that acknowledgement arrived; then the
 * heartbeat's own queue count includes it. Counting by acknowledgement, not by time, keeps a shard
 * that reads its dispatches slowly from being sent far more than its accept limit (seen with
 * 100,000 queued tasks: a lagging shard's queue grew to 20,000). An attempt never acknowledged
 * stops counting after {@code forgetAfterMillis}, in case its acknowledgement went to another
 * dispatcher instance.
 */
public final class Reservations {

    private static final class Sent {
        final String attemptId;
        final String shardKey;
        final long at;
        final double cpu;
        final long memoryBytes;
        long seenAt = Long.MAX_VALUE;
        boolean dropped;

        Sent(String attemptId, String shardKey, long at, double cpu, long memoryBytes) {
            this.attemptId = attemptId;
            this.shardKey = shardKey;
            this.at = at;
            this.cpu = cpu;
            this.memoryBytes = memoryBytes;
        }
    }

    /**
     * One shard's reservations with their running totals, so a decision reads the totals instead of
     * summing every dispatch still counted (at 700 dispatches a second, the sum over each shard's
     * last second of dispatches was a fifth of the dispatcher's CPU).
     */
    private static final class Shard {
        /** In the order sent, so the oldest (the first to be forgotten) are at the front. */
        final LinkedHashMap<String, Sent> bySending = new LinkedHashMap<>();
        /** Acknowledged ones, the earliest acknowledgement first (the first a heartbeat covers). */
        final PriorityQueue<Sent> acknowledged = new PriorityQueue<>(Comparator.comparingLong(s -> s.seenAt));
        int count;
        double cpu;
        long memoryBytes;
    }

    private final long forgetAfterMillis;
    private final Map<String, Shard> byShard = new HashMap<>();
    private final Map<String, Sent> byAttempt = new HashMap<>();

    public Reservations(long forgetAfterMillis) {
        this.forgetAfterMillis = forgetAfterMillis;
    }

    public void sent(String shardKey, String attemptId, Capacity resources, long at) {
        Sent previous = byAttempt.get(attemptId);
        if (previous != null) drop(previous);
        Sent s = new Sent(attemptId, shardKey, at, resources.getCpu(), resources.getMemoryBytes());
        byAttempt.put(attemptId, s);
        Shard shard = byShard.computeIfAbsent(shardKey, k -> new Shard());
        shard.bySending.put(attemptId, s);
        shard.count++;
        shard.cpu += s.cpu;
        shard.memoryBytes += s.memoryBytes;
    }

    /** The shard reported the attempt at {@code at}: heartbeats it sends from then on count it. */
    public void acknowledged(String attemptId, long at) {
        Sent s = byAttempt.get(attemptId);
        if (s == null || at >= s.seenAt) return;
        PriorityQueue<Sent> acknowledged = byShard.get(s.shardKey).acknowledged;
        if (s.seenAt != Long.MAX_VALUE) acknowledged.remove(s); // acknowledged again, earlier: rare
        s.seenAt = at;
        acknowledged.add(s);
    }

    /**
     * What counts against the shard's heartbeat sent at {@code heartbeatSentAt}, at {@code now}.
     * What that heartbeat covers, and what has waited past {@code forgetAfterMillis}, stops counting
     * for good.
     */
    public FrameworkSelector.Reservation since(String shardKey, long heartbeatSentAt, long now) {
        Shard shard = byShard.get(shardKey);
        if (shard == null) return FrameworkSelector.Reservation.NONE;
        while (!shard.acknowledged.isEmpty() && shard.acknowledged.peek().seenAt <= heartbeatSentAt) {
            drop(shard.acknowledged.poll());
        }
        for (Iterator<Sent> oldest = shard.bySending.values().iterator(); oldest.hasNext(); ) {
            Sent s = oldest.next();
            if (now - s.at <= forgetAfterMillis) break;
            oldest.remove();
            drop(s);
        }
        if (shard.count == 0) {
            byShard.remove(shardKey);
            return FrameworkSelector.Reservation.NONE;
        }
        return new FrameworkSelector.Reservation(shard.count, shard.cpu, shard.memoryBytes);
    }

    private void drop(Sent s) {
        if (s.dropped) return;
        s.dropped = true;
        byAttempt.remove(s.attemptId, s);
        Shard shard = byShard.get(s.shardKey);
        shard.bySending.remove(s.attemptId, s);
        shard.count--;
        shard.cpu -= s.cpu;
        shard.memoryBytes -= s.memoryBytes;
        if (shard.count == 0) { // no float left over from adding and taking away
            shard.cpu = 0;
            shard.memoryBytes = 0;
        }
    }
}
