package io.flash.common.streams;

import java.time.Duration;
import java.util.*;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Says so, with the stacks of the threads involved, when a stream thread of this process has not
 * polled for longer than a threshold: a thread that stops polling does no work and leaves its group
 * only when {@code max.poll.interval.ms} (5 minutes) runs out, silently. The stacks tell where it
 * waits — the one thing a stalled stream thread never logs by itself. Reads the consumers'
 * {@code last-poll-seconds-ago}; re-arms once the thread polls again.
 */
public final class StuckThreadWatch {

    /** Longer than any consumer has existed: it has not polled yet. */
    private static final double NEVER_POLLED = 365.0 * 24 * 3600;

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final Duration threshold;
    private final Consumer<String> warn;
    private final long startedAt;
    private final Set<String> reported = new HashSet<>();

    public StuckThreadWatch(Supplier<Map<MetricName, ? extends Metric>> metrics, Duration threshold, Consumer<String> warn, long now) {
        this.metrics = metrics;
        this.threshold = threshold;
        this.warn = warn;
        this.startedAt = now;
    }

    /** How long a stream thread may go without polling before it is reported. */
    public static final Duration THRESHOLD = Duration.ofSeconds(60);

    /** Watches {@code streams} every 15 s on a daemon thread, warning in this class's log. */
    public static void start(KafkaStreams streams) {
        start(streams, THRESHOLD, Logger.getLogger(StuckThreadWatch.class.getName()));
    }

    public static void start(KafkaStreams streams, Duration threshold, Logger log) {
        StuckThreadWatch watch = new StuckThreadWatch(streams::metrics, threshold, log::warning, System.currentTimeMillis());
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(15_000);
                    watch.check(System.currentTimeMillis());
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    log.fine("stuck-thread watch: " + e);
                }
            }
        }, "stuck-stream-thread-watch");
        t.setDaemon(true);
        t.start();
    }

    /** @return the stream threads found stuck now (each warned about once per episode) */
    public List<String> check(long now) {
        List<String> stuck = new ArrayList<>();
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.get().entrySet()) {
            MetricName name = e.getKey();
            String client = name.tags().get("client-id");
            if (!"last-poll-seconds-ago".equals(name.name()) || client == null || !client.endsWith("-consumer")
                    || client.endsWith("-restore-consumer") || !client.contains("-StreamThread-")) continue;
            String thread = client.substring(0, client.length() - "-consumer".length());
            double seconds = ((Number) e.getValue().metricValue()).doubleValue();
            if (seconds >= NEVER_POLLED) seconds = (now - startedAt) / 1000.0; // not one poll since the watch began
            if (seconds <= threshold.toSeconds()) {
                reported.remove(thread);
                continue;
            }
            stuck.add(thread);
            if (reported.add(thread)) {
                warn.accept("stream thread " + thread + " has not polled for " + Math.round(seconds) + " s: it processes nothing"
                        + " and leaves its group when max.poll.interval.ms runs out. Where its threads are:\n" + stacks(thread));
            }
        }
        return stuck;
    }

    /** The stacks of the stuck thread and of its client's other threads (state updater, global thread). */
    private static String stacks(String thread) {
        String client = thread.substring(0, thread.lastIndexOf("-StreamThread-"));
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, frames) -> {
            if (!t.getName().startsWith(client) && !t.getName().startsWith("flash-registry-call")) return;
            out.append("  \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (int i = 0; i < Math.min(frames.length, 25); i++) out.append("    at ").append(frames[i]).append('\n');
        });
        return out.toString();
    }
}
