package io.flash.dispatcher.selection;

import io.flash.schema.Capacity;

import java.util.*;

/**
 * What the dispatcher sent to each framework shard that the shard's latest heartbeat may not show
 * yet. A heartbeat sent at T is taken to include what was dispatched before T minus
 * {@code visibilityLagMillis} (the time a dispatch takes to be committed, read and queued); later
 * dispatches still count against it. Counting a few twice errs towards spreading work; forgetting
 * them would pile work onto whichever shard reported last.
 */
public final class Reservations {

    private record Sent(long at, double cpu, long memoryBytes) {
    }

    private final long visibilityLagMillis;
    private final Map<String, ArrayDeque<Sent>> byShard = new HashMap<>();

    public Reservations(long visibilityLagMillis) {
        this.visibilityLagMillis = visibilityLagMillis;
    }

    public void sent(String shardKey, Capacity resources, long at) {
        byShard.computeIfAbsent(shardKey, k -> new ArrayDeque<>()).addLast(new Sent(at, resources.getCpu(), resources.getMemoryBytes()));
    }

    /** What counts against the shard's heartbeat sent at {@code heartbeatSentAt}. */
    public FrameworkSelector.Reservation since(String shardKey, long heartbeatSentAt) {
        ArrayDeque<Sent> sent = byShard.get(shardKey);
        if (sent == null) return FrameworkSelector.Reservation.NONE;
        long cutoff = heartbeatSentAt - visibilityLagMillis;
        while (!sent.isEmpty() && sent.peekFirst().at() <= cutoff) sent.pollFirst();
        int count = 0;
        double cpu = 0;
        long memory = 0;
        for (Sent s : sent) {
            count++;
            cpu += s.cpu();
            memory += s.memoryBytes();
        }
        return new FrameworkSelector.Reservation(count, cpu, memory);
    }
}
