package io.flash.common.testing;

import io.flash.common.setup.KafkaGrants;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;

import java.io.IOException;
import java.io.InputStream;
import java.util.*;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Streams service's {@code quarkus.kafka-streams.topics} (what Quarkus waits for before starting
 * it, and its readiness check lists) must name every topic its topology reads: one left out starts
 * the client before the topic exists.
 */
public final class ListedTopics {

    private ListedTopics() {
    }

    /** Fails naming each topic the topology reads that the service's application.properties does not list. */
    public static void assertListed(Topology topology, Map<String, String> placeholders) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = ListedTopics.class.getClassLoader().getResourceAsStream("application.properties")) {
            properties.load(Objects.requireNonNull(in, "application.properties is not on the test class path"));
        }
        String listed = properties.getProperty("quarkus.kafka-streams.topics", "");
        for (Map.Entry<String, String> p : placeholders.entrySet()) listed = listed.replace("${" + p.getKey() + "}", p.getValue());
        Set<String> names = new TreeSet<>(Arrays.asList(listed.split("\\s*,\\s*")));
        Set<String> read = reads(topology);
        read.removeAll(names);
        assertTrue(read.isEmpty(), "read by the topology but not in quarkus.kafka-streams.topics: " + read + " (listed: " + names + ")");
    }

    /**
     * The secure mode's ACLs for the service ({@link KafkaGrants}) must allow every topic its topology
     * reads and writes: a topic left out stops the service on a secured broker.
     */
    public static void assertGranted(Topology topology, KafkaGrants.Grant grant) {
        Set<String> missing = new TreeSet<>();
        for (String t : reads(topology)) if (!KafkaGrants.allows(grant, t, AclOperation.READ)) missing.add("read " + t);
        for (String t : writes(topology)) if (!KafkaGrants.allows(grant, t, AclOperation.WRITE)) missing.add("write " + t);
        assertTrue(missing.isEmpty(), grant.principal() + " is not granted what its topology does: " + missing);
    }

    /** Sources and global stores. */
    private static Set<String> reads(Topology topology) {
        Set<String> read = new TreeSet<>();
        for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source) read.addAll(source.topicSet());
            }
        }
        for (TopologyDescription.GlobalStore store : topology.describe().globalStores()) read.addAll(store.source().topicSet());
        return read;
    }

    /** Sinks with a fixed topic (the dispatcher's per-framework sink picks its topic per record). */
    private static Set<String> writes(Topology topology) {
        Set<String> written = new TreeSet<>();
        for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Sink sink && sink.topic() != null) written.add(sink.topic());
            }
        }
        return written;
    }
}
