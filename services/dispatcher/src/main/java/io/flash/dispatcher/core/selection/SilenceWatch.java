package io.flash.dispatcher.core.selection;

import io.flash.schema.FrameworkHeartbeat;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * How long each framework shard has been silent <em>in time the dispatcher could see</em>. A shard's
 * silence grows only while some framework heartbeat is still arriving: when none has arrived for
 * {@code blindAfter} — the broker is down, the dispatcher's reader is stuck, or every framework is
 * frozen at once — or when the dispatcher itself has not looked for that long, it is blind, and
 * blindness is nobody's silence. Measured by the wall
 * clock alone, a 30 s broker outage made every shard look silent for 30 s the moment the broker
 * returned, and the dispatcher fenced 380 attempts that were fine.
 *
 * <p>In memory: after a dispatcher restart every shard starts at zero, one more grace period.
 */
public final class SilenceWatch {

    private final long blindAfterMillis;
    private final Map<String, Long> lastSentAt = new HashMap<>();
    private final Map<String, Long> silentFor = new HashMap<>();
    private long lastRound = Long.MIN_VALUE;
    private long lastArrival = Long.MIN_VALUE;

    public SilenceWatch(long blindAfterMillis) {
        this.blindAfterMillis = blindAfterMillis;
    }

    /** One look at the latest heartbeat of every shard. */
    public void observe(Collection<FrameworkHeartbeat> shards, long now) {
        Set<String> fresh = new HashSet<>();
        boolean arrived = false;
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            Long previous = lastSentAt.put(key, hb.getSentAt());
            if (previous == null || hb.getSentAt() > previous) {
                fresh.add(key);
                arrived |= previous != null; // the first look at a shard is a snapshot, not an arrival
            }
        }
        if (arrived || lastArrival == Long.MIN_VALUE) lastArrival = now;
        // A long gap between two looks is blindness too: the dispatcher's own thread was stuck (in a
        // commit during a broker outage) and saw nothing meanwhile, though heartbeats arrive now.
        long elapsed = lastRound == Long.MIN_VALUE || !seeing(now) || now - lastRound > blindAfterMillis ? 0 : now - lastRound;
        Map<String, Long> next = new HashMap<>();
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            next.put(key, fresh.contains(key) ? 0L : silentFor.getOrDefault(key, 0L) + elapsed);
        }
        silentFor.clear();
        silentFor.putAll(next);
        lastSentAt.keySet().retainAll(next.keySet());
        lastRound = now;
    }

    /** Milliseconds of seen silence of a shard ("framework/shard"); 0 for one never observed. */
    public long silentFor(String shardKey) {
        return silentFor.getOrDefault(shardKey, 0L);
    }

    /** Whether heartbeats are arriving at all (false: the dispatcher cannot judge anyone). */
    public boolean seeing(long now) {
        return lastArrival != Long.MIN_VALUE && now - lastArrival <= blindAfterMillis;
    }
}
