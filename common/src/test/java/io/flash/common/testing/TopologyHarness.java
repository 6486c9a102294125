package io.flash.common.testing;

import io.flash.common.serde.PlainAvroSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import org.apache.kafka.streams.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Properties;
import java.util.function.Function;

/** A TopologyTestDriver over Flash's typed topics, with registry-free Avro serdes. */
public final class TopologyHarness implements AutoCloseable {

    public final FlashTopics topics = new FlashTopics(new PlainAvroSerdes());
    public final TopologyTestDriver driver;

    public TopologyHarness(String name, Instant wallClock, Function<FlashTopics, Topology> topology) {
        this(name, newStateDir(name), wallClock, topology);
    }

    /**
     * Over the stores in {@code stateDir}: a harness closed and opened again on the same directory is
     * a service restarted with its stores (persistent stores keep what they held).
     */
    public TopologyHarness(String name, Path stateDir, Instant wallClock, Function<FlashTopics, Topology> topology) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, name);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(topology.apply(topics), props, wallClock);
    }

    public static Path newStateDir(String name) {
        try {
            return Files.createTempDirectory(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public <V> TestInputTopic<String, V> input(Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    public <V> TestOutputTopic<String, V> output(Topic<String, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keySerde().deserializer(), topic.valueSerde().deserializer());
    }

    @Override
    public void close() {
        driver.close();
    }
}
