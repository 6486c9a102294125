package io.flash.planner.app;

import io.flash.common.resources.MemoryPolicy;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.units.Quantities;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.kafka.PlannerTopology;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;
import java.time.Duration;

/** Hands the planner topology to Quarkus, which runs it with the kafka-streams.* settings. */
@ApplicationScoped
public class PlannerStreams {

    @Produces
    Topology topology(@ConfigProperty(name = "flash.registry.url") String registryUrl,
                      @ConfigProperty(name = "flash.planner.infrastructure-retries") int infraRetries,
                      @ConfigProperty(name = "flash.planner.oom-memory-factor") double oomFactor,
                      @ConfigProperty(name = "flash.memory.max-task") String maxTaskMemory,
                      @ConfigProperty(name = "flash.planner.framework-failure-limit") int frameworkFailureLimit,
                      @ConfigProperty(name = "flash.planner.max-backoff") Duration maxBackoff,
                      @ConfigProperty(name = "flash.planner.tick") Duration tick) {
        RetryPolicy policy = new RetryPolicy(infraRetries, new MemoryPolicy(oomFactor, Quantities.bytes(maxTaskMemory)),
                frameworkFailureLimit, maxBackoff.toSeconds());
        return PlannerTopology.build(new FlashTopics(new RegistryValueSerdes(registryUrl)), policy, tick, Clock.systemUTC());
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@jakarta.enterprise.event.Observes io.quarkus.runtime.StartupEvent start, org.apache.kafka.streams.KafkaStreams streams) {
        io.flash.common.streams.StuckThreadWatch.start(streams);
    }
}
