package io.flash.autoscaler.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HealthCheck;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import io.flash.autoscaler.core.NodeProvider;
import io.flash.schema.Capacity;
import io.flash.schema.CapacityDecision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The docker provider (docs/autoscaling.md): each node an executor container ({@code flash/executor})
 * on this machine's engine, as infra/compose runs one — the engine's socket, the cgroup tree and
 * the data directory mounted at the same paths, the host's network (so it reaches the broker as
 * this service does) — sized and priced as its class, labelled as the autoscaler's. The container
 * is named after the node, so launching a node twice starts one; it removes itself when the
 * executor exits (drained, or reclaimed).
 */
public final class DockerNodes implements NodeProvider {

    static final String SOCKET = "/var/run/docker.sock";

    /** What every node container gets besides its own identity. */
    public record Settings(String image, String dataDir, String bootstrapServers, String registryUrl) {
    }

    private final DockerClient docker;
    private final Settings settings;

    public DockerNodes(Settings settings) {
        this.settings = settings;
        DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost("unix://" + SOCKET).build();
        this.docker = DockerClientImpl.getInstance(config, new ApacheDockerHttpClient.Builder().dockerHost(config.getDockerHost())
                .connectionTimeout(Duration.ofSeconds(10)).build());
    }

    @Override
    public String name() {
        return "docker";
    }

    static String containerName(String nodeId) {
        return "flash-node-" + nodeId;
    }

    @Override
    public void launch(CapacityDecision decision) throws IOException {
        String name = containerName(decision.getNodeId());
        try {
            startIfOnlyCreated(name);
            return;
        } catch (NotFoundException absent) {
            // not yet
        }
        String dataDir = Path.of(settings.dataDir()).toAbsolutePath().normalize().toString();
        Files.createDirectories(Path.of(dataDir));
        HostConfig host = HostConfig.newHostConfig().withNetworkMode("host").withAutoRemove(true)
                .withBinds(new Bind(SOCKET, new Volume(SOCKET)), new Bind("/sys/fs/cgroup", new Volume("/sys/fs/cgroup"), AccessMode.ro),
                        new Bind(dataDir, new Volume(dataDir)));
        try {
            // The image's health check asks the service's fixed port; a node listens on a port of its own (host network).
            String id = docker.createContainerCmd(settings.image()).withName(name).withUser("0").withEnv(environment(decision, dataDir))
                    .withHealthcheck(new HealthCheck().withTest(List.of("NONE")))
                    .withLabels(Map.of("io.flash.autoscaler", "node", "io.flash.framework", decision.getFrameworkId(),
                            "io.flash.node", decision.getNodeId()))
                    .withHostConfig(host).exec().getId();
            docker.startContainerCmd(id).exec();
        } catch (ConflictException launchedMeanwhile) {
            startIfOnlyCreated(name); // another run of the same decision created it first
        }
    }

    /**
     * A node container carried out before. Created but not started: the runner stopped between the two
     * (killed), so start it now; running, or exited and leaving: nothing to do.
     */
    private void startIfOnlyCreated(String name) {
        InspectContainerResponse existing = docker.inspectContainerCmd(name).exec();
        if ("created".equals(existing.getState().getStatus())) docker.startContainerCmd(existing.getId()).exec();
    }

    private List<String> environment(CapacityDecision decision, String dataDir) {
        Capacity capacity = decision.getCapacity();
        List<String> env = new ArrayList<>(List.of(
                "FLASH_BOOTSTRAP_SERVERS=" + settings.bootstrapServers(), "FLASH_REGISTRY_URL=" + settings.registryUrl(),
                "FLASH_FRAMEWORK_ID=" + decision.getFrameworkId(), "FLASH_NODE_ID=" + decision.getNodeId(),
                "FLASH_NODE_CLASS=" + decision.getNodeClass(), "FLASH_NODE_SPOT=" + decision.getSpot(),
                "FLASH_NODE_LABELS=launched-by=autoscaler", "FLASH_DATA_DIR=" + dataDir,
                "FLASH_STATE_DIR=" + dataDir + "/state/" + decision.getNodeId(),
                "QUARKUS_HTTP_PORT=0", "FLASH_HTTP_HOST=127.0.0.1"));
        if (capacity != null) {
            env.add("FLASH_NODE_CPU=" + capacity.getCpu());
            env.add("FLASH_NODE_MEMORY=" + (capacity.getMemoryBytes() >> 20) + "Mi");
            if (capacity.getDiskBytes() > 0) env.add("FLASH_NODE_DISK=" + (capacity.getDiskBytes() >> 20) + "Mi");
        }
        return env;
    }
}
