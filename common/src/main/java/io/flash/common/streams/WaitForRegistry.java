package io.flash.common.streams;

import io.flash.common.deadletter.DeadLetters;
import io.flash.common.serde.DecodeFailures;
import java.time.Duration;
import java.util.logging.Logger;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The reader of a global store's topic: while the schema registry does not answer, it waits and
 * asks again instead of failing. A stream thread that fails on a silent registry is replaced and
 * reads the record again ({@link DeadLetterOnError}); a global thread cannot be replaced — Kafka
 * Streams stops the whole client, and the service stays up doing nothing. That happened to the
 * planner when its registry, starting beside five services on two cores, took over 10 s to answer
 * the first lookup. The global thread belongs to no consumer group, so waiting costs it nothing but
 * time; it waits as a Kafka client waits for its broker, and says so every {@link #REPORT_EVERY}.
 * Any other failure passes at once to the deserialization handler.
 */
public final class WaitForRegistry<V> implements Deserializer<V> {

    private static final Logger LOG = Logger.getLogger(WaitForRegistry.class.getName());
    static final Duration REPORT_EVERY = Duration.ofSeconds(30);

    /** How to wait between two tries; a test passes one that does not sleep. */
    public interface Pause {
        void pause(Duration duration) throws InterruptedException;
    }

    private final Deserializer<V> inner;
    private final Duration firstPause;
    private final Duration longestPause;
    private final Pause pause;

    public WaitForRegistry(Deserializer<V> inner) {
        this(inner, Duration.ofMillis(250), Duration.ofSeconds(5), d -> Thread.sleep(d.toMillis()));
    }

    WaitForRegistry(Deserializer<V> inner, Duration firstPause, Duration longestPause, Pause pause) {
        this.inner = inner;
        this.firstPause = firstPause;
        this.longestPause = longestPause;
        this.pause = pause;
    }

    @Override
    public V deserialize(String topic, byte[] data) {
        return deserialize(topic, null, data);
    }

    @Override
    public V deserialize(String topic, Headers headers, byte[] data) {
        Duration next = firstPause;
        Duration waited = Duration.ZERO;
        Duration reported = Duration.ZERO;
        while (true) {
            try {
                return headers == null ? inner.deserialize(topic, data) : inner.deserialize(topic, headers, data);
            } catch (RuntimeException e) {
                if (!DecodeFailures.registryUnreachable(e)) throw e;
                if (waited.isZero() || waited.minus(reported).compareTo(REPORT_EVERY) >= 0) {
                    LOG.warning("the schema registry is unreachable while reading " + topic + " into a global store ("
                            + DeadLetters.rootMessage(e) + "); waiting for it, " + waited.toSeconds() + " s so far");
                    reported = waited;
                }
                try {
                    pause.pause(next);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e; // the client is closing
                }
                waited = waited.plus(next);
                next = next.multipliedBy(2).compareTo(longestPause) > 0 ? longestPause : next.multipliedBy(2);
            }
        }
    }

    @Override
    public void close() {
        inner.close();
    }
}
