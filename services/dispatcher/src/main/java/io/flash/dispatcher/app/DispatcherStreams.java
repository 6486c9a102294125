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
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/** Hands the dispatcher topology to Quarkus, which runs it with the kafka-streams.* settings. */
@ApplicationScoped
public class DispatcherStreams {

    @Produces
    Topology topology(MeterRegistry meters, DispatcherConfig config) {
        DispatcherConfig.Dispatcher dispatcher = config.dispatcher();
        return DispatcherTopology.build(new FlashTopics(new RegistryValueSerdes(config.registry().url())),
                new FrameworkSelector(dispatcher.heartbeatTimeout().toMillis()),
                new DispatcherTopology.Settings(dispatcher.retryInterval(), dispatcher.redispatchGrace(), dispatcher.blindAfter()),
                Clock.systemUTC(), meters);
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
