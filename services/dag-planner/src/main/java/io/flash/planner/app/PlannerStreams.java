package io.flash.planner.app;

import io.flash.common.resources.MemoryPolicy;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.common.units.Quantities;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.core.ShardSizing;
import io.flash.planner.core.cache.ResultCache;
import io.flash.planner.kafka.PlannerTopology;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/** Hands the planner topology to Quarkus, which runs it with the kafka-streams.* settings. */
@ApplicationScoped
public class PlannerStreams {

    @Produces
    Topology topology(PlannerConfig config) {
        PlannerConfig.Planner planner = config.planner();
        RetryPolicy policy = new RetryPolicy(planner.infrastructureRetries(),
                new MemoryPolicy(planner.oomMemoryFactor(), Quantities.bytes(config.memory().maxTask())),
                planner.frameworkFailureLimit(), planner.maxBackoff().toSeconds(), planner.maxSpotAttempts());
        return PlannerTopology.build(new FlashTopics(new RegistryValueSerdes(config.registry().url())), policy,
                new ShardSizing(planner.firstRunShards()), cacheSettings(config.cache()), planner.tick(), planner.envelopeInterval(),
                Clock.systemUTC());
    }

    private static PlannerTopology.CacheSettings cacheSettings(PlannerConfig.Cache cache) {
        return new PlannerTopology.CacheSettings(cache.scope(), new ResultCache.Limits(cache.maxAge().toMillis(),
                Quantities.bytes(cache.maxBytesPerPartition()), cache.maxEntriesPerPartition()), cache.evictEvery());
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
