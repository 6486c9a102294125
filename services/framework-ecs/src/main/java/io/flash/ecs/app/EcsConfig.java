package io.flash.ecs.app;

import io.flash.common.settings.CapacitySettings;
import io.flash.common.settings.FrameworkSettings;
import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.Optional;

/**
 * framework-ecs's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface EcsConfig {

    RegistrySettings registry();

    Framework framework();

    /** The node classes this framework's nodes are started as, and their prices (docs/cost.md). */
    CapacitySettings capacity();

    interface Framework extends FrameworkSettings {
        /** A node silent for longer is lost; its attempts are retried elsewhere. */
        Duration nodeTimeout();

        /** Per-queue quotas, queue=fraction of a shard's cpu and memory (e.g. batch=0.5,dev=0.25); none when unset. */
        Optional<String> quotas();

        /** Lower-priority attempts one shard may stop per minute for higher-priority ones (0: never). */
        int preemptionsPerMinute();
    }
}
