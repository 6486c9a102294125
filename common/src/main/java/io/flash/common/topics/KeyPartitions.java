package io.flash.common.topics;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition a string key lands in under the producer's default partitioner (murmur2 of the key,
 * modulo the partitions): what a reader computes to find a keyed record without scanning, e.g. the
 * partition of its framework's assignments a node reads, or the shard a node's heartbeats reach.
 */
public final class KeyPartitions {

    private KeyPartitions() {
    }

    public static int of(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
