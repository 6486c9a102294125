package io.flash.common.settings;

import java.time.Duration;

/** flash.framework.*: what every level-2 framework service (framework-ecs, framework-batch) is configured with. */
public interface FrameworkSettings {

    /** The framework's name: its topics are flash.fw.&lt;id&gt;.* (FLASH_FRAMEWORK_ID). */
    String id();

    /** Scheduling shards: partitions of its tasks, nodes and node-events topics, when it creates them. */
    int shards();

    /** Partitions of its assignments topic, when it creates it. */
    int assignmentPartitions();

    /** How often a shard does its rounds and heartbeats. */
    Duration tick();

    /** Dispatched attempts one shard accepts before it has placed or submitted them (back-pressure to the dispatcher). */
    int acceptLimit();

    /** A shard that did not tick for longer reports what it had not placed instead of placing it: the dispatcher may have moved it. */
    Duration fenceAfterAbsence();

    /** Whether this build creates the framework's topics on start (a build-time setting). */
    boolean createsTopics();
}
