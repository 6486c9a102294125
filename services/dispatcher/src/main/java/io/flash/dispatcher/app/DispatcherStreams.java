package io.flash.dispatcher.app;

import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.dispatcher.core.selection.FrameworkSelector;
import io.flash.dispatcher.kafka.DispatcherTopology;
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

/** Hands the dispatcher topology to Quarkus, which runs it with the kafka-streams.* settings. */
@ApplicationScoped
public class DispatcherStreams {

    @Produces
    Topology topology(MeterRegistry meters,
                      @ConfigProperty(name = "flash.registry.url") String registryUrl,
                      @ConfigProperty(name = "flash.dispatcher.heartbeat-timeout", defaultValue = "15s") Duration heartbeatTimeout,
                      @ConfigProperty(name = "flash.dispatcher.retry-interval", defaultValue = "500ms") Duration retryInterval,
                      @ConfigProperty(name = "flash.dispatcher.redispatch-grace", defaultValue = "15s") Duration redispatchGrace,
                      @ConfigProperty(name = "flash.dispatcher.blind-after", defaultValue = "5s") Duration blindAfter) {
        return DispatcherTopology.build(new FlashTopics(new RegistryValueSerdes(registryUrl)),
                new FrameworkSelector(heartbeatTimeout.toMillis()),
                new DispatcherTopology.Settings(retryInterval, redispatchGrace, blindAfter), Clock.systemUTC(), meters);
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
