package io.flash.ecs.app;

import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.ecs.core.ShardSettings;
import io.flash.ecs.core.queue.QueueQuotas;
import io.flash.ecs.kafka.EcsTopology;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Hands the framework topology to Quarkus (its topics: common-quarkus FrameworkTopicsBootstrap). */
@ApplicationScoped
public class EcsStreams {

    @Produces
    Topology topology(MeterRegistry meters,
                      @ConfigProperty(name = "flash.registry.url") String registryUrl,
                      @ConfigProperty(name = "flash.framework.id") String frameworkId,
                      @ConfigProperty(name = "flash.framework.node-timeout") Duration nodeTimeout,
                      @ConfigProperty(name = "flash.framework.tick") Duration tick,
                      @ConfigProperty(name = "flash.framework.accept-limit") int acceptLimit,
                      @ConfigProperty(name = "flash.framework.quotas", defaultValue = " ") String quotas,
                      @ConfigProperty(name = "flash.framework.preemptions-per-minute", defaultValue = "10") int preemptionsPerMinute,
                      @ConfigProperty(name = "flash.framework.fence-after-absence", defaultValue = "20s") Duration fenceAfterAbsence) {
        return EcsTopology.build(new FlashTopics(new RegistryValueSerdes(registryUrl)),
                new ShardSettings(frameworkId, nodeTimeout, tick, acceptLimit,
                        QueueQuotas.parse(quotas), preemptionsPerMinute, fenceAfterAbsence), Clock.systemUTC(), meters);
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
