package io.flash.executor.app;

import com.sun.management.OperatingSystemMXBean;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.units.Quantities;
import io.flash.executor.docker.DockerRuntime;
import io.flash.executor.docker.RegistryAuth;
import io.flash.executor.node.NodeAgent;
import io.flash.executor.node.NodeSettings;
import io.flash.executor.sim.RunTimes;
import io.flash.executor.sim.SimulatedFleet;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Starts this machine's node agent with Quarkus and stops it on shutdown; reports its readiness. */
@ApplicationScoped
@Readiness
public class ExecutorNode implements HealthCheck {

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @ConfigProperty(name = "flash.registry.url") String registryUrl;
    @ConfigProperty(name = "flash.framework.id") String frameworkId;
    @ConfigProperty(name = "flash.node.id") Optional<String> nodeId;
    @ConfigProperty(name = "flash.node.cpu") Optional<Double> cpu;
    @ConfigProperty(name = "flash.node.memory") Optional<String> memory;
    @ConfigProperty(name = "flash.node.disk") Optional<String> disk;
    @ConfigProperty(name = "flash.node.disk-type") String diskType;
    @ConfigProperty(name = "flash.node.gpus") int gpus;
    @ConfigProperty(name = "flash.node.network") boolean network;
    @ConfigProperty(name = "flash.node.labels") Optional<String> labels;
    @ConfigProperty(name = "flash.node.heartbeat-interval") Duration heartbeatInterval;
    @ConfigProperty(name = "flash.node.pull-timeout") Duration pullTimeout;
    @ConfigProperty(name = "flash.node.log-tail-lines") int logTailLines;
    @ConfigProperty(name = "flash.docker.host") String dockerHost;
    @ConfigProperty(name = "flash.node.registry-auth") Optional<String> registryAuth;
    @ConfigProperty(name = "flash.node.cgroup-root") String cgroupRoot;
    @ConfigProperty(name = "flash.node.usage-interval") Duration usageInterval;
    @ConfigProperty(name = "flash.node.work-root") String workRoot;
    @ConfigProperty(name = "flash.node.log-chunk-bytes") int logChunkBytes;
    @ConfigProperty(name = "flash.node.log-bytes-per-second") String logBytesPerSecond;
    @ConfigProperty(name = "flash.node.cache-max") String cacheMax;
    @ConfigProperty(name = "flash.node.pids-per-cpu") int pidsPerCpu;
    @ConfigProperty(name = "flash.node.shared-root") String sharedRoot;
    @ConfigProperty(name = "flash.node.kill-grace") Duration killGrace;
    @ConfigProperty(name = "flash.node.fetch-allow") Optional<String> fetchAllow;
    @ConfigProperty(name = "flash.store.s3.endpoint") Optional<String> s3Endpoint;
    @ConfigProperty(name = "flash.store.s3.region") String s3Region;
    @ConfigProperty(name = "flash.store.s3.access-key") Optional<String> s3AccessKey;
    @ConfigProperty(name = "flash.store.s3.secret-key") Optional<String> s3SecretKey;
    @ConfigProperty(name = "flash.store.s3.path-style") boolean s3PathStyle;

    @ConfigProperty(name = "flash.sim.nodes") int simulatedNodes;
    @ConfigProperty(name = "flash.sim.run-time") String simulatedRunTime;
    @ConfigProperty(name = "flash.sim.failure-rate") double simulatedFailureRate;
    @ConfigProperty(name = "flash.sim.seed") long simulatedSeed;

    @Inject MeterRegistry meters;

    private DockerRuntime docker;
    private NodeAgent agent;
    private SimulatedFleet fleet;

    void onStart(@Observes StartupEvent event) throws Exception {
        FlashTopics topics = new FlashTopics(new RegistryValueSerdes(registryUrl));
        NodeSettings settings = settings();
        if (simulatedNodes > 0) {
            fleet = new SimulatedFleet(new SimulatedFleet.Settings(simulatedNodes, settings.nodeId(), RunTimes.parse(simulatedRunTime),
                    simulatedFailureRate, simulatedSeed), settings, topics, bootstrap);
            fleet.start();
            fleet.bindMetrics(meters);
            return;
        }
        docker = new DockerRuntime(dockerHost, RegistryAuth.parse(registryAuth.orElse(null)));
        agent = new NodeAgent(settings, docker, topics, bootstrap);
        agent.start();
        agent.bindMetrics(meters);
    }

    void onStop(@Observes ShutdownEvent event) throws Exception {
        if (fleet != null) fleet.close();
        if (agent != null) agent.close();
        if (docker != null) docker.close();
    }

    NodeSettings settings() throws Exception {
        long physical = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        Capacity capacity = new Capacity(
                cpu.orElse((double) Runtime.getRuntime().availableProcessors()),
                memory.map(Quantities::bytes).orElse(physical * 8 / 10),
                disk.map(Quantities::bytes).orElse(Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))).getUsableSpace()),
                gpus);
        Map<String, String> labelMap = new LinkedHashMap<>();
        labels.ifPresent(text -> {
            for (String pair : text.split(",")) {
                String[] kv = pair.split("=", 2);
                if (kv.length == 2) labelMap.put(kv[0].trim(), kv[1].trim());
            }
        });
        String id = nodeId.filter(s -> !s.isBlank())
                .orElse((simulatedNodes > 0 ? "sim-" : "node-") + InetAddress.getLocalHost().getHostName());
        return new NodeSettings(id, frameworkId, capacity, DiskType.valueOf(diskType.toUpperCase(Locale.ROOT)), network,
                labelMap, heartbeatInterval, pullTimeout, logTailLines, Path.of(cgroupRoot), usageInterval, Path.of(workRoot),
                logChunkBytes, Quantities.bytes(logBytesPerSecond),
                new ObjectStore.Settings(s3Endpoint.orElse(""), s3Region, s3AccessKey.orElse(""), s3SecretKey.orElse(""), s3PathStyle),
                Quantities.bytes(cacheMax), new NodeSettings.Sandbox(pidsPerCpu, killGrace), Path.of(sharedRoot),
                fetchAllow.orElse(""));
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
