package io.flash.ingest.api;

import io.flash.common.client.JobClient;
import io.flash.ingest.app.IngestConfig;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** One Kafka client for every HTTP door of ingest (Flash's own API and TES) that publishes jobs and cancels. */
@Singleton
public class JobClients {

    @Produces
    @Singleton
    JobClient client(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap,
                     IngestConfig config) {
        return new JobClient(bootstrap, config.registry().url());
    }

    void close(@Disposes JobClient client) {
        client.close();
    }
}
