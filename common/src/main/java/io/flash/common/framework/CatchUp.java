package io.flash.common.framework;

/**
 * A shard's return from an absence — frozen (SIGSTOP, a long pause), stopped, restarted late, or
 * cut off from Kafka for longer than {@code fenceAfterAbsence}. Meanwhile the dispatcher may have
 * moved some of its queued attempts, and the fences (cancels marked {@code fence}) wait in its
 * tasks topic behind the dispatches, perhaps unread. So on return the shard writes a marker to its
 * own tasks partition and places nothing until it reads the marker back: by then it has read every
 * fence written before, and drops the fenced attempts instead of running them beside their retries.
 * A broker outage fences nothing at the dispatcher, and here costs only the marker's round trip.
 *
 * <p>No Kafka here: the processor writes the marker; the last tick and the awaited marker are kept
 * through {@link Persisted} (the shard's store), so a shard restarted while it waits keeps waiting
 * for the same marker.
 */
public final class CatchUp {

    /** Where the shard keeps its clock; read when a shard starts, written as it goes. */
    public interface Persisted {
        Long lastTickAt();

        void ticked(long now);

        Long markerAt();

        void markerAt(Long at);
    }

    public static final String MARKER_PREFIX = "resume-marker/";

    private final long fenceAfterMillis;
    private final int shard;
    private final Persisted store;
    private long lastTick;
    private Long markerAt;

    /** Only reads the store (a processor's init may not write): a new shard has no last tick. */
    public CatchUp(long fenceAfterMillis, int shard, Persisted store, long now) {
        this.fenceAfterMillis = fenceAfterMillis;
        this.shard = shard;
        this.store = store;
        Long stored = store.lastTickAt();
        this.lastTick = stored == null ? now : stored;
        this.markerAt = store.markerAt();
    }

    /** How long since the last tick (the shard's absence if it is long). */
    public long away(long now) {
        return now - lastTick;
    }

    /** Whether {@code now} ends an absence long enough that the dispatcher may have fenced something. */
    public boolean endsAnAbsence(long now) {
        return away(now) > fenceAfterMillis;
    }

    public void ticked(long now) {
        lastTick = now;
        store.ticked(now);
    }

    /** @return the key of the marker to write now; placement is held until it is read back */
    public String markerWritten(long now) {
        markerAt = now;
        store.markerAt(now);
        return markerKey(now);
    }

    /** While true, nothing is placed: fences may still be unread. */
    public boolean holding() {
        return markerAt != null;
    }

    /** @return whether this record is the awaited marker (placement may resume) */
    public boolean markerRead(String key) {
        if (markerAt == null || !markerKey(markerAt).equals(key)) return false; // an older marker: keep waiting
        markerAt = null;
        store.markerAt(null);
        return true;
    }

    public static boolean isMarker(String key) {
        return key != null && key.startsWith(MARKER_PREFIX);
    }

    /** The shard a marker goes back to (its own partition). */
    public static int shardOf(String markerKey) {
        String rest = markerKey.substring(MARKER_PREFIX.length());
        return Integer.parseInt(rest.substring(0, rest.indexOf('/')));
    }

    private String markerKey(long at) {
        return MARKER_PREFIX + shard + "/" + at;
    }
}
