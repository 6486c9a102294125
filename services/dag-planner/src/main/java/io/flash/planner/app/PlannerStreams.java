package io.flash.planner.app;

import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.planner.dag.RetryPolicy;
import io.flash.planner.topology.PlannerTopology;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;

/** Hands the planner topology to Quarkus, which runs it with the kafka-streams.* settings. */
@ApplicationScoped
public class PlannerStreams {

    @Produces
    Topology topology(@ConfigProperty(name = "flash.registry.url") String registryUrl,
                      @ConfigProperty(name = "flash.planner.infrastructure-retries", defaultValue = "3") int infraRetries) {
        return PlannerTopology.build(new FlashTopics(new RegistryValueSerdes(registryUrl)),
                new RetryPolicy(infraRetries), Clock.systemUTC());
    }
}
