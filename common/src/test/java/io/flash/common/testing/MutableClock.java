package io.flash.common.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;

/** A clock the test moves by hand, in step with a TopologyTestDriver's wall-clock time. */
public final class MutableClock extends Clock {
    private long millis;

    public MutableClock(long millis) {
        this.millis = millis;
    }

    public void advance(long delta) {
        millis += delta;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
