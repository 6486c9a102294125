package io.flash.common.topics;

import org.apache.kafka.common.serialization.Serde;

/**
 * A Kafka topic with its key and value serdes: the only way services name a topic.
 * Obtain instances from {@link FlashTopics}.
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde) {
}
