package io.flash.executor.app;

import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.Optional;

/**
 * The executor's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults, their reasons and their environment variables are in
 * application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface ExecutorConfig {

    RegistrySettings registry();

    Framework framework();

    Node node();

    Store store();

    Sim sim();

    Docker docker();

    interface Framework {
        /** The framework whose node this is. */
        String id();
    }

    /** Who this node is and what it offers; an unset size is measured on the machine. */
    interface Node {
        /** Unset: node- (or sim-) and the host name. */
        Optional<String> id();

        /** Unset: every core. */
        Optional<Double> cpu();

        /** Unset: 80 % of the machine's memory. */
        Optional<String> memory();

        /** Unset: the free space of the temporary directory's file system. */
        Optional<String> disk();

        String diskType();

        int gpus();

        boolean network();

        /** key=value,key=value: what a task's labels can ask for. */
        Optional<String> labels();

        /** The node class of its framework's catalogue this node was started as (docs/cost.md); empty: unpriced. */
        Optional<String> nodeClass();

        /** Whether this node runs on spot capacity (priced at its class's spot price). */
        boolean spot();

        /** For a spot node: how often per hour its provider reclaims it (0: only when told, e.g. flash capacity reclaim). */
        double spotReclaimsPerHour();

        /** For a spot node: the notice a reclaim gives before the capacity goes. */
        Duration spotNotice();

        Duration heartbeatInterval();

        Duration pullTimeout();

        int pidsPerCpu();

        Duration killGrace();

        int logChunkBytes();

        String logBytesPerSecond();

        int logTailLines();

        String workRoot();

        String sharedRoot();

        /** Address ranges http(s) inputs may reach besides the public internet. */
        Optional<String> fetchAllow();

        String cgroupRoot();

        Duration usageInterval();

        /** registry=user:password,...: the node's own credentials for private registries. */
        Optional<String> registryAuth();

        String cacheMax();
    }

    interface Store {
        S3 s3();
    }

    /** The object store for s3:// inputs and outputs; none when the endpoint is unset. */
    interface S3 {
        Optional<String> endpoint();

        String region();

        Optional<String> accessKey();

        Optional<String> secretKey();

        boolean pathStyle();
    }

    /** A fleet of simulated nodes instead of this machine's engine (nodes &gt; 0). */
    interface Sim {
        int nodes();

        String runTime();

        double failureRate();

        long seed();

        /** Also start the nodes the autoscaler launches (flash.capacity.decisions) and let drained ones leave. */
        boolean elastic();

        /** Every this long one simulated spot node is reclaimed with its notice (0: only when told). */
        Duration reclaimEvery();
    }

    interface Docker {
        /** The engine's address. */
        String host();
    }
}
