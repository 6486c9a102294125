package io.flash.planner.app;

import io.flash.common.resources.MemoryPolicy;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.common.units.Quantities;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.kafka.PlannerTopology;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

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
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
