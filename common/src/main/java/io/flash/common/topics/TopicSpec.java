package io.flash.common.topics;

import java.time.Duration;
import java.util.Map;

/** How a topic is created: partitions, and whether it is compacted or deleted after a retention. */
public record TopicSpec(String name, int partitions, boolean compacted, Duration retention) {

    public Map<String, String> configs() {
        if (compacted) {
            return Map.of("cleanup.policy", "compact",
                    "min.cleanable.dirty.ratio", "0.1",
                    "segment.ms", Long.toString(Duration.ofHours(1).toMillis()));
        }
        return Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(retention.toMillis()));
    }
}
