package io.flash.ingest.setup;

import io.flash.common.setup.PlatformSetup;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * Ingest, the platform's front door, makes sure the platform topics exist and the registry's rule
 * is BACKWARD when it starts — what `bin/flash setup` does — so a stack started from images or
 * manifests needs no separate setup step. Safe on every start; frameworks create their own topics.
 */
@ApplicationScoped
public class PlatformBootstrap {

    private static final Logger LOG = Logger.getLogger(PlatformBootstrap.class);

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @ConfigProperty(name = "flash.registry.url") String registryUrl;
    @ConfigProperty(name = "flash.topics.partitions", defaultValue = "3") int partitions;
    @ConfigProperty(name = "flash.topics.create-on-start", defaultValue = "true") boolean createOnStart;

    void onStart(@Observes @Priority(1) StartupEvent event) throws Exception {
        if (!createOnStart) return;
        List<String> created = PlatformSetup.createTopics(new PlatformSetup.Settings(bootstrap, registryUrl, partitions, List.of(), 1, 1), true);
        if (!created.isEmpty()) LOG.infof("created topics %s", created);
        PlatformSetup.setBackwardCompatibility(registryUrl);
    }
}
