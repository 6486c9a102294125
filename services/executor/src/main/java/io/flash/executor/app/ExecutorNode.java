package io.flash.executor.app;

import com.sun.management.OperatingSystemMXBean;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.executor.channel.KafkaCacheIndex;
import io.flash.common.units.Quantities;
import io.flash.executor.agent.NodeAgent;
import io.flash.executor.attempt.NodeSettings;
import io.flash.executor.channel.KafkaFrameworkLink;
import io.flash.executor.docker.DockerRuntime;
import io.flash.executor.docker.RegistryAuth;
import io.flash.executor.sim.RunTimes;
import io.flash.executor.sim.SimulatedFleet;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Starts this machine's node agent with Quarkus and stops it on shutdown; reports its readiness. */
@ApplicationScoped
@Readiness
public class ExecutorNode implements HealthCheck {

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @Inject ExecutorConfig config;
    @Inject MeterRegistry meters;

    private DockerRuntime docker;
    private NodeAgent agent;
    private SimulatedFleet fleet;
    private KafkaCacheIndex cacheIndex;

    void onStart(@Observes StartupEvent event) throws Exception {
        FlashTopics topics = new FlashTopics(new RegistryValueSerdes(config.registry().url()));
        NodeSettings settings = settings();
        ExecutorConfig.Sim sim = config.sim();
        if (sim.nodes() > 0 || sim.elastic()) {
            fleet = new SimulatedFleet(new SimulatedFleet.Settings(sim.nodes(), settings.nodeId(), RunTimes.parse(sim.runTime()),
                    sim.failureRate(), sim.seed(), sim.elastic(), sim.reclaimEvery()), settings, topics, bootstrap);
            fleet.start();
            fleet.bindMetrics(meters);
            return;
        }
        docker = new DockerRuntime(config.docker().host(), RegistryAuth.parse(config.node().registryAuth().orElse(null)));
        cacheIndex = new KafkaCacheIndex(topics, bootstrap).start();
        agent = new NodeAgent(settings, docker, new KafkaFrameworkLink(topics, settings.frameworkId(), settings.nodeId(), bootstrap),
                cacheIndex);
        agent.onLeave(() -> Quarkus.asyncExit(0)); // a reclaimed spot node is gone, as its machine would be
        agent.start();
        agent.bindMetrics(meters);
    }

    void onStop(@Observes ShutdownEvent event) throws Exception {
        if (fleet != null) fleet.close();
        if (agent != null) agent.close();
        if (cacheIndex != null) cacheIndex.close();
        if (docker != null) docker.close();
    }

    NodeSettings settings() throws Exception {
        ExecutorConfig.Node node = config.node();
        long physical = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        Capacity capacity = new Capacity(
                node.cpu().orElse((double) Runtime.getRuntime().availableProcessors()),
                node.memory().map(Quantities::bytes).orElse(physical * 8 / 10),
                node.disk().map(Quantities::bytes).orElse(Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))).getUsableSpace()),
                node.gpus());
        Map<String, String> labelMap = new LinkedHashMap<>();
        node.labels().ifPresent(text -> {
            for (String pair : text.split(",")) {
                String[] kv = pair.split("=", 2);
                if (kv.length == 2) labelMap.put(kv[0].trim(), kv[1].trim());
            }
        });
        String id = node.id().filter(s -> !s.isBlank())
                .orElse((config.sim().nodes() > 0 || config.sim().elastic() ? "sim-" : "node-") + InetAddress.getLocalHost().getHostName());
        ExecutorConfig.S3 s3 = config.store().s3();
        return new NodeSettings(id, config.framework().id(), capacity, DiskType.valueOf(node.diskType().toUpperCase(Locale.ROOT)),
                node.network(), labelMap, node.heartbeatInterval(), node.pullTimeout(), node.logTailLines(), Path.of(node.cgroupRoot()),
                node.usageInterval(), Path.of(node.workRoot()), node.logChunkBytes(), Quantities.bytes(node.logBytesPerSecond()),
                new ObjectStore.Settings(s3.endpoint().orElse(""), s3.region(), s3.accessKey().orElse(""), s3.secretKey().orElse(""),
                        s3.pathStyle()),
                Quantities.bytes(node.cacheMax()), new NodeSettings.Sandbox(node.pidsPerCpu(), node.killGrace()),
                Path.of(node.sharedRoot()), node.fetchAllow().orElse(""),
                new NodeSettings.Pricing(node.nodeClass().filter(c -> !c.isBlank()).orElse(null), node.spot(),
                        node.spotReclaimsPerHour(), node.spotNotice()));
    }

    @Override
    public HealthCheckResponse call() {
        if (fleet != null) {
            return HealthCheckResponse.named("executor-simulated-nodes").status(fleet.healthy())
                    .withData("nodes", fleet.nodes()).withData("runningAttempts", fleet.runningAttempts()).build();
        }
        return HealthCheckResponse.named("executor-node")
                .status(agent != null && agent.healthy())
                .withData("runningAttempts", agent == null ? 0 : agent.runningAttempts())
                .build();
    }
}
