package io.flash.common.topics;

import org.apache.kafka.common.serialization.Serde;

import java.util.function.UnaryOperator;

/**
 * Topics of one shape, one per framework ({@code flash.fw.<id>.tasks}, …): one key and value serde,
 * the name from the framework id. What a sink that routes by record writes through.
 */
public record TopicFamily<K, V>(UnaryOperator<String> nameOf, Serde<K> keySerde, Serde<V> valueSerde) {

    public Topic<K, V> of(String frameworkId) {
        return new Topic<>(nameOf.apply(frameworkId), keySerde, valueSerde);
    }
}
