package io.flash.batch.core;

import io.flash.common.framework.FrameworkHeartbeats.Offer;
import io.flash.schema.Capacity;

import java.time.Duration;
import java.util.List;

/**
 * Whether a cluster's controller answers, is slow or is down, and what it offered when it last
 * answered. A busy controller times calls out now and then (seen at 64 jobs on two cores: a look
 * unanswered for half a minute): that is slow, not down. Slow, the shard heartbeats what the last
 * answered look saw with no free room, so new work prefers elsewhere and nothing is fenced; once
 * no look has been answered for down-after it is down, and the shard falls silent so the
 * dispatcher moves what it has not placed.
 */
final class ControllerWatch {

    private static final Capacity NO_ROOM = new Capacity(0.0, 0L, 0L, 0);

    private final long downAfterMillis;
    /** None until a look is answered, after a restart too: the shard has nothing true to say before. */
    private List<Offer> offers;
    private long answeredAt;
    private boolean unanswered;

    ControllerWatch(Duration downAfter) {
        this.downAfterMillis = downAfter.toMillis();
    }

    void answered(List<Offer> offers, long now) {
        this.offers = offers;
        this.answeredAt = now;
        this.unanswered = false;
    }

    void unanswered() {
        unanswered = true;
    }

    /** Whether the controller answered once and has not for down-after since (not: never heard, after a restart). */
    boolean down(long now) {
        return offers != null && now - answeredAt > downAfterMillis;
    }

    /** @return what to offer the dispatcher now, or null when the controller is down (or was never heard) */
    List<Offer> offers(long now) {
        if (offers == null || now - answeredAt > downAfterMillis) return null;
        if (!unanswered) return offers;
        return offers.stream().map(o -> new Offer(o.total(), NO_ROOM, o.diskType(), o.network(), o.labels())).toList();
    }
}
