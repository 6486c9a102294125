package io.flash.planner.app;

import io.flash.common.settings.RegistrySettings;
import io.flash.planner.core.cache.ResultCache;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;

/**
 * The planner's settings (flash.*), checked at start: a missing or malformed value stops the
 * service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface PlannerConfig {

    RegistrySettings registry();

    Planner planner();

    Memory memory();

    Cache cache();

    interface Cache {
        /** Whose results a job's units may be served (docs/caching.md): owner (the default), queue or platform. */
        ResultCache.Sharing scope();

        /** An entry older than this is dropped from the index whatever a job asks. */
        Duration maxAge();

        /** Past this many entries in one partition of flash.cache.entries, the oldest go. */
        long maxEntriesPerPartition();

        /** Past this much output named by one partition's entries (e.g. 200Gi), the oldest go. */
        String maxBytesPerPartition();

        /** How often the bounds are applied. */
        Duration evictEvery();
    }

    interface Planner {
        /** Attempts lost to the platform (node, framework, engine) a task may spend besides its own maxAttempts. */
        int infrastructureRetries();

        /** An OOM-killed attempt is retried with its memory times this factor. */
        double oomMemoryFactor();

        /** Failures on one framework after which the next attempt avoids it. */
        int frameworkFailureLimit();

        /** The longest wait between two attempts of a task. */
        Duration maxBackoff();

        /** Spot reclaims of one task (free to the user) after which its attempts run on on-demand capacity only. */
        int maxSpotAttempts();

        /** Shards of a scatter sized by targetShardDuration when no earlier run says how long an item takes. */
        int firstRunShards();

        /** How often waiting retries are looked at. */
        Duration tick();

        /** How long attempts made ready may wait to be sent to the dispatcher together. */
        Duration envelopeInterval();
    }

    interface Memory {
        /** The most memory a task may be given, by its spec or by OOM growth (FLASH_MAX_TASK_MEMORY). */
        String maxTask();
    }
}
