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
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/** Hands the framework topology to Quarkus (its topics: common-quarkus FrameworkTopicsBootstrap). */
@ApplicationScoped
public class EcsStreams {

    @Produces
    Topology topology(MeterRegistry meters, EcsConfig config) {
        EcsConfig.Framework fw = config.framework();
        return EcsTopology.build(new FlashTopics(new RegistryValueSerdes(config.registry().url())),
                new ShardSettings(fw.id(), fw.nodeTimeout(), fw.tick(), fw.acceptLimit(), QueueQuotas.parse(fw.quotas().orElse("")),
                        fw.preemptionsPerMinute(), fw.fenceAfterAbsence(), config.capacity().catalogue()), Clock.systemUTC(), meters);
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
