package io.flash.autoscaler.app;

import io.flash.autoscaler.core.ScalerSettings;
import io.flash.autoscaler.core.NodeProvider;
import io.flash.autoscaler.core.SimulatedNodes;
import io.flash.autoscaler.docker.DockerNodes;
import io.flash.autoscaler.kafka.AutoscalerTopology;
import io.flash.autoscaler.kafka.DecisionRunner;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.TopicNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Hands the autoscaler's topology to Quarkus, and starts the runner that carries its decisions out
 * through the configured provider (docker; simulated, for benchmarks; or none to decide only).
 */
@ApplicationScoped
public class AutoscalerStreams {

    private static final Logger LOG = Logger.getLogger(AutoscalerStreams.class);

    private final AutoscalerConfig config;
    private final String bootstrapServers;
    private final Duration sessionTimeout;
    private DecisionRunner runner;

    public AutoscalerStreams(AutoscalerConfig config,
                             @ConfigProperty(name = "quarkus.kafka-streams.bootstrap-servers") String bootstrapServers,
                             @ConfigProperty(name = "kafka-streams.consumer.session.timeout.ms") long sessionTimeoutMs) {
        this.config = config;
        this.bootstrapServers = bootstrapServers;
        this.sessionTimeout = Duration.ofMillis(sessionTimeoutMs);
    }

    @Produces
    Topology topology(MeterRegistry meters) throws Exception {
        AutoscalerConfig.Autoscaler a = config.autoscaler();
        ScalerSettings planner = new ScalerSettings(a.scaleUpAfter(), a.idleBeforeDrain(), a.launchTimeout(), a.drainCoolDown(),
                a.maxNodes(), a.maxSpendPerHour());
        return AutoscalerTopology.build(topics(), new AutoscalerTopology.Settings(shards(a.frameworks()), planner, a.tick(),
                a.nodeTimeout()), Clock.systemUTC(), meters);
    }

    /** Each framework's shard count: the partitions of its nodes topic, which the framework creates. */
    private Map<String, Integer> shards(List<String> frameworks) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        Map<String, Integer> shards = new LinkedHashMap<>();
        try (Admin admin = Admin.create(props)) {
            for (String framework : frameworks) {
                String topic = TopicNames.frameworkNodes(framework);
                int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
                shards.put(framework, partitions);
                LOG.infof("deciding the capacity of framework %s (%d shards)", framework, partitions);
            }
        }
        return shards;
    }

    private FlashTopics topics() {
        return new FlashTopics(new RegistryValueSerdes(config.registry().url()));
    }

    void start(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
        AutoscalerConfig.Autoscaler a = config.autoscaler();
        if ("none".equals(a.provider())) {
            LOG.info("provider none: decisions are published, nothing starts or returns nodes");
            return;
        }
        NodeProvider provider = switch (a.provider()) {
            case "docker" -> {
                AutoscalerConfig.Docker d = a.docker();
                yield new DockerNodes(new DockerNodes.Settings(d.image(), d.dataDir(), d.bootstrapServers().orElse(bootstrapServers),
                        d.registryUrl().orElse(config.registry().url())));
            }
            case "simulated" -> new SimulatedNodes();
            default -> throw new IllegalArgumentException("flash.autoscaler.provider: '" + a.provider()
                    + "' is not one of docker, simulated, none");
        };
        runner = new DecisionRunner(topics(), provider, bootstrapServers, sessionTimeout);
        runner.start();
    }

    void stop(@Observes ShutdownEvent stop) {
        if (runner != null) runner.close();
    }
}
