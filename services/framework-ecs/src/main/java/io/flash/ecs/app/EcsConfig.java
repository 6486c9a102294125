package io.flash.ecs.app;

import io.smallrye.config.ConfigMapping;

import java.time.Duration;
import java.util.Optional;

/**
 * framework-ecs's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface EcsConfig {

    Registry registry();

    Framework framework();

    interface Registry {
        /** The schema registry (FLASH_REGISTRY_URL). */
        String url();
    }

    interface Framework {
        /** The framework's name: its topics are flash.fw.&lt;id&gt;.* (FLASH_FRAMEWORK_ID). */
        String id();

        /** Scheduling shards: partitions of its tasks, nodes and node-events topics, when it creates them. */
        int shards();

        /** Partitions of its assignments topic, when it creates it (a node reads one). */
        int assignmentPartitions();

        /** A node silent for longer is lost; its attempts are retried elsewhere. */
        Duration nodeTimeout();

        /** How often a shard checks its nodes, retries its queue and heartbeats. */
        Duration tick();

        /** A shard that did not tick for longer reports what it had not placed instead of placing it. */
        Duration fenceAfterAbsence();

        /** Dispatched but unplaced attempts one shard accepts (back-pressure to the dispatcher). */
        int acceptLimit();

        /** Per-queue quotas, queue=fraction of a shard's cpu and memory (e.g. batch=0.5,dev=0.25); none when unset. */
        Optional<String> quotas();

        /** Lower-priority attempts one shard may stop per minute for higher-priority ones (0: never). */
        int preemptionsPerMinute();

        /** Whether this build creates the framework's topics on start (a build-time setting). */
        boolean createsTopics();
    }
}
