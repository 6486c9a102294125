package io.flash.executor.agent;

import io.flash.schema.Assignment;
import io.flash.schema.AttemptEvent;
import io.flash.schema.LogChunk;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.UsageSample;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A node's link to its framework (Kafka in production: channel/KafkaFrameworkLink; memory in the
 * agent's tests): its own assignments in, in order and from where it left off; its attempts' events,
 * logs, usage and its heartbeats out. Reading happens on the agent's one poll thread.
 */
public interface FrameworkLink extends AutoCloseable {

    /** One record of the node's assignments: the assignment, or null for one that is not this node's or not an assignment (already set aside), and the position after it. */
    record Delivery(Assignment assignment, long next) {
    }

    /** The platform's id: what tells this platform's containers from another's on a shared engine. */
    String platformId() throws InterruptedException;

    /**
     * Starts reading this node's assignments where it left off, with that position pinned before the
     * first heartbeat, so nothing assigned after the heartbeat can be skipped. What it reads, for the log.
     */
    String open() throws InterruptedException;

    /** The node's partition of the assignments, as its heartbeat names it. */
    int partition();

    /** What arrived, in order; empty after the timeout or a {@link #wakeup}. */
    List<Delivery> poll(Duration timeout);

    /** Everything before {@code next} is handled: a restarted node starts reading there. */
    void commit(long next);

    /** Ends a poll in progress (from another thread). */
    void wakeup();

    /** Stops reading (on the poll thread, after its last poll). */
    void closeReader();

    Future<?> report(AttemptEvent event);

    Future<?> log(LogChunk chunk);

    void usage(UsageSample sample);

    /** @param acked called with null once the heartbeat is written, or with why it was not */
    void heartbeat(NodeHeartbeat heartbeat, Consumer<Exception> acked);

    void bindMetrics(MeterRegistry registry);

    @Override
    void close();
}
