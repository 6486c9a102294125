package io.flash.ingest.app;

import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Ingest's settings (flash.*), checked at start: a missing, malformed or unknown value stops the
 * service naming the property. Defaults, their reasons and their environment variables are in
 * application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface IngestConfig {

    RegistrySettings registry();

    Ingest ingest();

    Memory memory();

    Tes tes();

    Security security();

    Console console();

    Topics topics();

    View view();

    /** What one job may ask for: larger ones are refused, naming the limit. */
    interface Ingest {
        int maxTasks();

        double maxCpu();

        int maxShards();

        /** A job spec's size on the topic, in bytes. */
        int maxSpecBytes();
    }

    interface Memory {
        /** The most memory one task may ask for. */
        String maxTask();
    }

    interface Tes {
        /** The storage a TES client is told it may use (service-info storage). */
        List<String> storage();

        /** An object store's endpoint: when set, s3:// is advertised too. */
        Optional<String> objectStore();
    }

    interface Security {
        /** The identity provider's role that sees and cancels every user's jobs. */
        String adminRole();
    }

    interface Console {
        /** The identity provider's client the web console signs in with. */
        String clientId();
    }

    interface View {
        /** How long the status view keeps a finished job's units after it finished; its status stays for good. */
        Duration keepFinishedUnits();
    }

    interface Topics {
        /** Partitions of each platform topic ingest creates. */
        int partitions();

        /** Whether ingest creates the platform's topics on start. */
        boolean createOnStart();
    }
}
