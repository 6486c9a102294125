package io.flash.common.framework;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * An instance shutting down says so in each of its shards' heartbeats before it gives them up, so
 * that the dispatcher stops sending them work at once rather than after its heartbeat timeout. The
 * shards' processors register while they own a shard and mark each heartbeat they send while the
 * instance is leaving; {@link #announce} returns once every owned shard has sent one, or after its
 * bound. A leaving heartbeat is the last its owner writes: the next owner's heartbeats follow it.
 */
public final class Departure {

    private final Set<Integer> owned = new HashSet<>();
    private final Set<Integer> announced = new HashSet<>();
    private volatile boolean leaving;

    /** The processor of this shard runs on this instance. */
    public synchronized void owns(int shard) {
        owned.add(shard);
    }

    /** It no longer does (closed, revoked). */
    public synchronized void released(int shard) {
        owned.remove(shard);
        notifyAll();
    }

    /** Whether heartbeats sent now must say the shard is leaving. */
    public boolean leaving() {
        return leaving;
    }

    /** The shard's processor forwarded a heartbeat that says it is leaving. */
    public synchronized void announced(int shard) {
        announced.add(shard);
        notifyAll();
    }

    /**
     * Starts leaving and waits until every owned shard has announced it (its heartbeat is then in the
     * stream task's open transaction, which a clean close commits).
     *
     * @return whether every shard announced within the bound
     */
    public synchronized boolean announce(Duration bound) throws InterruptedException {
        leaving = true;
        long deadline = System.nanoTime() + bound.toNanos();
        while (!announced.containsAll(owned)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
