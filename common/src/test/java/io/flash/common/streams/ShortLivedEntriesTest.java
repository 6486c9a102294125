package io.flash.common.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A store from {@link Wiring#store} on Kafka Streams' own caching and changelogging layers (the test
 * driver commits after every input record, so one record here is one commit interval): the changelog
 * carries what a successor must restore, and nothing for an entry that lived within one commit.
 */
class ShortLivedEntriesTest {

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> commands;
    private TestOutputTopic<String, String> changelog;
    private KeyValueStore<String, String> store;

    /**
     * Each record's value is a list of writes done while handling it: {@code put:k=v}, {@code delete:k};
     * through {@link StoreTable}, as the services write.
     */
    private static final class Writer implements Processor<String, String, Void, Void> {
        private StoreTable<String> store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = StoreTable.of(context, "items");
        }

        @Override
        public void process(Record<String, String> record) {
            for (String write : record.value().split(" ")) {
                if (write.startsWith("put:")) {
                    String[] kv = write.substring(4).split("=");
                    store.put(kv[0], kv[1]);
                } else {
                    store.delete(write.substring(7));
                }
            }
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        Topology topology = new Topology();
        topology.addSource("in", new StringDeserializer(), new StringDeserializer(), "writes");
        topology.addProcessor("writer", Writer::new, "in");
        Wiring.store(topology, "items", Serdes.String(), "writer");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("short-lived").toString());
        driver = new TopologyTestDriver(topology, props);
        commands = driver.createInputTopic("writes", new StringSerializer(), new StringSerializer());
        changelog = driver.createOutputTopic("app-items-changelog", new StringDeserializer(), new StringDeserializer());
        store = driver.getKeyValueStore("items");
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void within(String... writes) {
        commands.pipeInput("k", String.join(" ", writes));
    }

    @Test
    void anEntryCreatedAndDeletedWithinACommitWritesNothing() {
        within("put:a=1", "put:a=2", "delete:a");
        assertTrue(changelog.isEmpty(), "no put and no tombstone: a successor has nothing to restore");
        assertNull(store.get("a"));
    }

    @Test
    void anEntryThatOutlivesItsCommitIsRestoredAndItsDeletionToo() {
        within("put:a=1", "put:a=2");
        within("delete:a");
        assertEquals(List.of(KeyValue.pair("a", "2"), KeyValue.pair("a", null)), changelog.readKeyValuesToList(),
                "its last value of the first commit, then the tombstone");
    }

    @Test
    void anEntryStoredEarlierAndRewrittenThenDeletedWithinACommitIsDeleted() {
        within("put:a=1");
        within("put:a=2", "delete:a");
        assertEquals(Arrays.asList(KeyValue.pair("a", "1"), KeyValue.pair("a", null)), changelog.readKeyValuesToList(),
                "the successor must not restore the stored value");
    }

    @Test
    void otherEntriesOfTheCommitAreWrittenAsUsual() {
        within("put:a=1", "put:b=1", "delete:a", "put:c=1", "delete:c");
        assertEquals(List.of(KeyValue.pair("b", "1")), changelog.readKeyValuesToList());
        assertEquals("1", store.get("b"));
    }
}
