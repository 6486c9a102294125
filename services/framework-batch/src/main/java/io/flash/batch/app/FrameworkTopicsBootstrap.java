package io.flash.batch.app;

import io.flash.common.setup.PlatformSetup;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * The framework creates its own four topics on start (if missing), so a new framework id needs no
 * separate setup step. Quarkus starts the Streams client only once every topic of
 * {@code quarkus.kafka-streams.topics} exists (these four among them), so the order of this and the
 * client's start does not matter: Streams waits for what this creates.
 */
@ApplicationScoped
public class FrameworkTopicsBootstrap {

    private static final Logger LOG = Logger.getLogger(FrameworkTopicsBootstrap.class);

    @ConfigProperty(name = "kafka-streams.bootstrap.servers") String bootstrap;
    @ConfigProperty(name = "flash.registry.url") String registryUrl;
    @ConfigProperty(name = "flash.framework.id") String frameworkId;
    @ConfigProperty(name = "flash.framework.shards") int shards;
    @ConfigProperty(name = "flash.framework.assignment-partitions") int assignmentPartitions;

    void onStart(@Observes @Priority(1) StartupEvent event) throws Exception {
        List<String> created = PlatformSetup.createTopics(new PlatformSetup.Settings(bootstrap, registryUrl, 1, List.of(frameworkId),
                shards, assignmentPartitions), false);
        if (!created.isEmpty()) LOG.infof("created topics %s", created);
    }
}
