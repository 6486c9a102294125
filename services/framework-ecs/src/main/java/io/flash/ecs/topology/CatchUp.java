package io.flash.ecs.topology;

/**
 * A shard's return from an absence — frozen (SIGSTOP, a long pause), stopped, restarted late, or
 * cut off from Kafka for longer than {@code fenceAfterAbsence}. Meanwhile the dispatcher may have
 * moved some of its queued attempts, and the fences (cancels marked {@code fence}) wait in its
 * tasks topic behind the dispatches, perhaps unread. So on return the shard writes a marker to its
 * own tasks partition and places nothing until it reads the marker back: by then it has read every
 * fence written before, and drops the fenced attempts instead of running them beside their retries.
 * A broker outage fences nothing at the dispatcher, and here costs only the marker's round trip.
 *
 * <p>No Kafka here: the processor writes the marker and persists {@link #markerAt} and the last tick
 * in the shard's store, so a shard restarted while it waits keeps waiting for the same marker.
 */
final class CatchUp {

    static final String MARKER_PREFIX = "resume-marker/";

    private final long fenceAfterMillis;
    private final int shard;
    private long lastTick;
    private Long markerAt;

    /**
     * @param storedLastTick the shard's last committed tick, or null for a new shard
     * @param storedMarker   when a marker still unread was written, or null
     */
    CatchUp(long fenceAfterMillis, int shard, Long storedLastTick, Long storedMarker, long now) {
        this.fenceAfterMillis = fenceAfterMillis;
        this.shard = shard;
        this.lastTick = storedLastTick == null ? now : storedLastTick;
        this.markerAt = storedMarker;
    }

    /** How long since the last tick (the shard's absence if it is long). */
    long away(long now) {
        return now - lastTick;
    }

    /** Whether {@code now} ends an absence long enough that the dispatcher may have fenced something. */
    boolean endsAnAbsence(long now) {
        return away(now) > fenceAfterMillis;
    }

    void ticked(long now) {
        lastTick = now;
    }

    /** @return the key of the marker to write now; placement is held until it is read back */
    String markerWritten(long now) {
        markerAt = now;
        return markerKey(now);
    }

    Long markerAt() {
        return markerAt;
    }

    /** While true, nothing is placed: fences may still be unread. */
    boolean holding() {
        return markerAt != null;
    }

    /** @return whether this record is the awaited marker (placement may resume) */
    boolean markerRead(String key) {
        if (markerAt == null || !markerKey(markerAt).equals(key)) return false; // an older marker: keep waiting
        markerAt = null;
        return true;
    }

    static boolean isMarker(String key) {
        return key != null && key.startsWith(MARKER_PREFIX);
    }

    /** The shard a marker goes back to (its own partition). */
    static int shardOf(String markerKey) {
        String rest = markerKey.substring(MARKER_PREFIX.length());
        return Integer.parseInt(rest.substring(0, rest.indexOf('/')));
    }

    private String markerKey(long at) {
        return MARKER_PREFIX + shard + "/" + at;
    }
}
