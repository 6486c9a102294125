package io.flash.ecs.app;

import io.flash.common.framework.Departure;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.ecs.core.ShardSettings;
import io.flash.ecs.core.queue.QueueQuotas;
import io.flash.ecs.kafka.EcsTopology;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.jboss.logging.Logger;

/** Hands the framework topology to Quarkus (its topics: common-quarkus FrameworkTopicsBootstrap). */
@ApplicationScoped
public class EcsStreams {

    private static final Logger LOG = Logger.getLogger(EcsStreams.class);

    @Produces
    @Singleton
    Departure departure() {
        return new Departure();
    }

    @Produces
    Topology topology(MeterRegistry meters, EcsConfig config, Departure departure) {
        EcsConfig.Framework fw = config.framework();
        return EcsTopology.build(new FlashTopics(new RegistryValueSerdes(config.registry().url())),
                new ShardSettings(fw.id(), fw.nodeTimeout(), fw.tick(), fw.acceptLimit(), QueueQuotas.parse(fw.quotas().orElse("")),
                        fw.preemptionsPerMinute(), fw.fenceAfterAbsence(), config.capacity().catalogue()), Clock.systemUTC(), meters, departure);
    }

    /**
     * Before Quarkus closes the streams (which hands this instance's shards to another, or to nobody),
     * each shard says it is leaving, so that the dispatcher stops sending it work now rather than
     * after its heartbeat timeout. Bounded by three ticks: a shard that does not tick meanwhile is
     * judged by its silence as before.
     */
    void leave(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent stop, Departure departure, EcsConfig config)
            throws InterruptedException {
        if (!departure.announce(config.framework().tick().multipliedBy(3))) {
            LOG.warn("not every shard said it is leaving before the bound; the dispatcher will judge those by their silence");
        }
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
