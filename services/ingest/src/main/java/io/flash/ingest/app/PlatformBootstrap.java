package io.flash.ingest.app;

import io.flash.common.setup.PlatformSetup;
import io.flash.ingest.app.IngestConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Ingest, the platform's front door, makes sure the platform topics exist and the registry's rule
 * is BACKWARD when it starts — what `bin/flash setup` does — so a stack started from images or
 * manifests needs no separate setup step. Safe on every start; frameworks create their own topics.
 */
@ApplicationScoped
public class PlatformBootstrap {

    private static final Logger LOG = Logger.getLogger(PlatformBootstrap.class);

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @Inject IngestConfig config;

    void onStart(@Observes @Priority(1) StartupEvent event) throws Exception {
        if (!config.topics().createOnStart()) return;
        String registryUrl = config.registry().url();
        List<String> created = PlatformSetup.createTopics(new PlatformSetup.Settings(bootstrap, registryUrl, config.topics().partitions(),
                List.of(), 1, 1), true);
        if (!created.isEmpty()) LOG.infof("created topics %s", created);
        PlatformSetup.setBackwardCompatibility(registryUrl);
    }
}
