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
        final String shardKey;
        final long at;
        final double cpu;
        final long memoryBytes;
        long seenAt = Long.MAX_VALUE;

        Sent(String shardKey, long at, double cpu, long memoryBytes) {
            this.shardKey = shardKey;
            this.at = at;
            this.cpu = cpu;
            this.memoryBytes = memoryBytes;
        }
    }

    private final long forgetAfterMillis;
    private final Map<String, Map<String, Sent>> byShard = new HashMap<>();
    private final Map<String, Sent> byAttempt = new HashMap<>();

    public Reservations(long forgetAfterMillis) {
        this.forgetAfterMillis = forgetAfterMillis;
    }

    public void sent(String shardKey, String attemptId, Capacity resources, long at) {
        Sent s = new Sent(shardKey, at, resources.getCpu(), resources.getMemoryBytes());
        Sent previous = byAttempt.put(attemptId, s);
        if (previous != null) byShard.get(previous.shardKey).remove(attemptId);
        byShard.computeIfAbsent(shardKey, k -> new LinkedHashMap<>()).put(attemptId, s);
    }

    /** The shard reported the attempt at {@code at}: heartbeats it sends from then on count it. */
    public void acknowledged(String attemptId, long at) {
        Sent s = byAttempt.get(attemptId);
        if (s != null && at < s.seenAt) s.seenAt = at;
    }

    /** What counts against the shard's heartbeat sent at {@code heartbeatSentAt}, at {@code now}. */
    public FrameworkSelector.Reservation since(String shardKey, long heartbeatSentAt, long now) {
        Map<String, Sent> sent = byShard.get(shardKey);
        if (sent == null) return FrameworkSelector.Reservation.NONE;
        int count = 0;
        double cpu = 0;
        long memory = 0;
        for (Iterator<Map.Entry<String, Sent>> it = sent.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Sent> e = it.next();
            Sent s = e.getValue();
            if (s.seenAt <= heartbeatSentAt || now - s.at > forgetAfterMillis) {
                it.remove();
                byAttempt.remove(e.getKey());
                continue;
            }
            count++;
            cpu += s.cpu;
            memory += s.memoryBytes;
        }
        return new FrameworkSelector.Reservation(count, cpu, memory);
    }
}
