package io.flash.common.streams;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

class StuckThreadWatchTest {

    private final Map<MetricName, Metric> metrics = new HashMap<>();
    private final List<String> warnings = new ArrayList<>();

    private void lastPoll(String clientId, double secondsAgo) {
        MetricName name = new MetricName("last-poll-seconds-ago", "consumer-metrics", "", Map.of("client-id", clientId));
        metrics.put(name, new Metric() {
            public MetricName metricName() { return name; }
            public Object metricValue() { return secondsAgo; }
        });
    }

    @Test
    void aStreamThreadThatStoppedPollingIsReportedOnceWithItsStacksUntilItPollsAgain() {
        StuckThreadWatch watch = new StuckThreadWatch(() -> metrics, Duration.ofSeconds(60), warnings::add, 0);
        lastPoll("app-1-StreamThread-1-consumer", 2);
        lastPoll("app-1-StreamThread-1-restore-consumer", 900); // restores poll only while restoring
        lastPoll("app-1-global-consumer", 900);
        assertEquals(List.of(), watch.check(10_000));

        lastPoll("app-1-StreamThread-1-consumer", 75);
        assertEquals(List.of("app-1-StreamThread-1"), watch.check(80_000));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).startsWith("stream thread app-1-StreamThread-1 has not polled for 75 s"), warnings.get(0));
        watch.check(95_000);
        assertEquals(1, warnings.size(), "once per episode");

        lastPoll("app-1-StreamThread-1-consumer", 1);
        assertEquals(List.of(), watch.check(100_000));
        lastPoll("app-1-StreamThread-1-consumer", 61);
        watch.check(170_000);
        assertEquals(2, warnings.size(), "a new episode is reported again");
    }

    @Test
    void aThreadThatNeverPolledCountsFromTheWatchsStart() {
        StuckThreadWatch watch = new StuckThreadWatch(() -> metrics, Duration.ofSeconds(60), warnings::add, 1_000_000);
        lastPoll("app-1-StreamThread-1-consumer", 1.7e9); // the consumer's clock starts at 0
        assertEquals(List.of(), watch.check(1_030_000), "30 s after the start: not yet");
        assertEquals(List.of("app-1-StreamThread-1"), watch.check(1_090_000), "90 s and still no poll");
    }
}
