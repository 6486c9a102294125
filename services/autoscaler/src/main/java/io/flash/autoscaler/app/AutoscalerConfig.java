package io.flash.autoscaler.app;

import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The autoscaler's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface AutoscalerConfig {

    RegistrySettings registry();

    Autoscaler autoscaler();

    interface Autoscaler {
        /** The frameworks whose capacity it decides (framework-ecs ids). */
        List<String> frameworks();

        /** How often it decides. */
        Duration tick();

        /** Work waiting this long with no room and no launch coming gets nodes. */
        Duration scaleUpAfter();

        /** A node it launched that runs nothing this long, while nothing waits, is drained. */
        Duration idleBeforeDrain();

        /** A launched node that has not reported by then is given up on. */
        Duration launchTimeout();

        /** No drain this soon after a launch. */
        Duration drainCoolDown();

        /** Never more nodes of one framework than this. */
        int maxNodes();

        /** Never more than this an hour for one framework's nodes, at their classes' prices. */
        double maxSpendPerHour();

        /** A node whose newest heartbeat is older than this is gone (its framework's node timeout). */
        Duration nodeTimeout();

        /** Where nodes come from: docker (executor containers on this machine's engine) or none (decide only). */
        String provider();

        Docker docker();
    }

    /** The docker provider: each node an executor container (flash/executor), as infra/compose runs it. */
    interface Docker {
        /** The executor image. */
        String image();

        /** The data directory the nodes share with this machine (work and shared roots), mounted at the same path. */
        String dataDir();

        /** The broker as a node container reaches it (host networking: as this service does, unless set). */
        Optional<String> bootstrapServers();

        /** The schema registry as a node container reaches it (unless set: as this service does). */
        Optional<String> registryUrl();
    }
}
