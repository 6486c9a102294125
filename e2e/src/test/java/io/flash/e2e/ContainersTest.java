package io.flash.e2e;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import io.flash.common.client.JobClient;
import io.flash.common.client.TopicTail;
import io.flash.schema.*;
import org.junit.jupiter.api.*;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.*;
import java.util.stream.Stream;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The whole platform from its images (infra/images/services/build.sh), each part a container on
 * one network — broker, registry, the five services; the executor drives the host's engine through
 * its socket — and the hello job submitted from outside, its result read from the result topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainersTest {

    private static final String TAG = System.getProperty("flash.image-tag", "0.1.0");
    private static final int KAFKA_HOST_PORT = 29094, REGISTRY_HOST_PORT = 28081;
    private final Network network = Network.newNetwork();
    private final List<GenericContainer<?>> started = new ArrayList<>();
    private final Map<String, Long> readyMillis = new LinkedHashMap<>();
    private Path workRoot;

    private GenericContainer<?> container(String image, String alias) {
        return new GenericContainer<>(DockerImageName.parse("flash/" + image + ":" + TAG)).withNetwork(network).withNetworkAliases(alias);
    }

    private static GenericContainer<?> publish(GenericContainer<?> c, int hostPort, int containerPort) {
        return c.withExposedPorts(containerPort).withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withPortBindings(new PortBinding(Ports.Binding.bindPort(hostPort), new ExposedPort(containerPort))));
    }

    private void start(String name, GenericContainer<?> c) {
        long t0 = System.nanoTime();
        c.start();
        started.add(c);
        readyMillis.put(name, (System.nanoTime() - t0) / 1_000_000);
    }

    private GenericContainer<?> service(String name, int port) {
        return container(name, name).withEnv("FLASH_BOOTSTRAP_SERVERS", "kafka:9092").withEnv("FLASH_REGISTRY_URL", "http://registry:8081")
                .withExposedPorts(port).waitingFor(Wait.forHttp("/q/health/ready").forPort(port).withStartupTimeout(Duration.ofMinutes(3)));
    }

    @BeforeAll
    void startStack() throws Exception {
        // The images are built from the jars this build just packaged (seconds when nothing changed).
        Path home = Path.of(System.getProperty("flash.home", "..")).toAbsolutePath().normalize();
        Process build = new ProcessBuilder("bash", home.resolve("infra/images/services/build.sh").toString()).inheritIO().start();
        assertEquals(0, build.waitFor(), "infra/images/services/build.sh failed");
        RequiredImages.require("infra/images/services/build.sh", Stream.of("kafka", "registry", "ingest", "dag-planner", "dispatcher",
                "framework-ecs", "executor").map(name -> "flash/" + name + ":" + TAG).toList());
        start("kafka", publish(container("kafka", "kafka"), KAFKA_HOST_PORT, 9094)
                .withEnv("KAFKA_ADVERTISED_HOST", "kafka").withEnv("KAFKA_EXTERNAL_PORT", Integer.toString(KAFKA_HOST_PORT))
                .waitingFor(Wait.forLogMessage(".*Kafka Server started.*", 1).withStartupTimeout(Duration.ofMinutes(2))));
        // The image's health check looks every 5 s; its management port answers the moment it is ready.
        GenericContainer<?> registry = container("registry", "registry").withExposedPorts(8081, 8082)
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withPortBindings(
                        new PortBinding(Ports.Binding.bindPort(REGISTRY_HOST_PORT), new ExposedPort(8081)),
                        new PortBinding(Ports.Binding.empty(), new ExposedPort(8082))));
        start("registry", registry.waitingFor(Wait.forHttp("/health/ready").forPort(8082).withStartupTimeout(Duration.ofMinutes(3))));
        // One at a time: started at once on two cores (beside the suite's own stack) they took longer
        // to be ready, and the first job longer to run (55 s and 46 s against 41 s and 19 s in CI).
        start("ingest", service("ingest", 8090));
        start("dag-planner", service("dag-planner", 8091));
        start("dispatcher", service("dispatcher", 8092));
        start("framework-ecs", service("framework-ecs", 8093));
        // The executor's containers are siblings on the host engine: the work root has the same path on both sides.
        workRoot = Files.createTempDirectory("flash-containers-work");
        Files.setPosixFilePermissions(workRoot, PosixFilePermissions.fromString("rwxrwxrwx"));
        String dockerGroup = Files.getAttribute(Path.of("/var/run/docker.sock"), "unix:gid").toString();
        GenericContainer<?> executor = service("executor", 8094)
                .withEnv("FLASH_NODE_ID", "container-node-1").withEnv("FLASH_NODE_CPU", "2").withEnv("FLASH_NODE_MEMORY", "2Gi")
                .withEnv("FLASH_NODE_DISK_TYPE", "hdd").withEnv("FLASH_WORK_ROOT", workRoot.toString())
                .withFileSystemBind("/var/run/docker.sock", "/var/run/docker.sock", BindMode.READ_WRITE)
                .withFileSystemBind("/sys/fs/cgroup", "/sys/fs/cgroup", BindMode.READ_ONLY)
                .withFileSystemBind(workRoot.toString(), workRoot.toString(), BindMode.READ_WRITE)
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withGroupAdd(List.of(dockerGroup)));
        start("executor", executor);
        System.out.println("container start to ready (ms): " + readyMillis);
    }

    @AfterAll
    void stopStack() {
        Collections.reverse(started);
        started.forEach(GenericContainer::stop);
        network.close();
    }

    @Test
    void theHelloJobRunsThroughTheContainerizedStack() throws Exception {
        try (JobClient client = new JobClient("127.0.0.1:" + KAFKA_HOST_PORT, "http://127.0.0.1:" + REGISTRY_HOST_PORT);
             JobClient.ResultStream results = client.openResults();
             TopicTail<TaskEvent> events = new TopicTail<>("127.0.0.1:" + KAFKA_HOST_PORT, client.topics().tasksEvents)) {
            long t0 = System.nanoTime();
            String jobId = client.submit(job("hello-containers", task("hello", "echo hello from a container", 0.25, "32Mi")));
            JobResult result = results.await(jobId, Duration.ofMinutes(3))
                    .orElseThrow(() -> new AssertionError(whyNoResult(jobId, events)));
            System.out.printf("containerized stack: hello submit -> result %d ms (first job)%n", (System.nanoTime() - t0) / 1_000_000);
            assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result.getReason()));
            assertEquals("hello from a container", result.getTasks().get(0).getStdoutTail().strip());
            assertEquals("container-node-1", result.getTasks().get(0).getNodeId());
        }
    }

    /**
     * What a reader of a CI log needs when the job never ends: how far its task got, and each
     * container's warnings; the full logs are kept under target/containers-logs.
     */
    private String whyNoResult(String jobId, TopicTail<TaskEvent> events) {
        StringBuilder why = new StringBuilder("no result for ").append(jobId).append("; its task events:\n");
        events.values(e -> e.getJobId().equals(jobId)).forEach(e -> why.append("  ").append(e.getType()).append(' ')
                .append(e.getFrameworkId()).append(" ").append(e.getNodeId()).append(" ").append(e.getReason()).append('\n'));
        Path logs = Path.of("target/containers-logs");
        List<String> names = new ArrayList<>(readyMillis.keySet());
        // Each service's JVM is PID 1 of its container (exec java): SIGQUIT makes it write a thread dump to its log.
        for (int i = 2; i < started.size(); i++) {
            started.get(i).getDockerClient().killContainerCmd(started.get(i).getContainerId()).withSignal("QUIT").exec();
        }
        try {
            Thread.sleep(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (int i = 2; i < started.size(); i++) why.append(ThreadDumps.summary(names.get(i), started.get(i).getLogs()));
        for (int i = 0; i < started.size(); i++) {
            String log = started.get(i).getLogs();
            try {
                Files.createDirectories(logs);
                Files.writeString(logs.resolve(names.get(i) + ".log"), log);
            } catch (java.io.IOException e) {
                why.append("(could not keep the log of ").append(names.get(i)).append(": ").append(e).append(")\n");
            }
            List<String> warnings = log.lines().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.contains("Exception")).toList();
            why.append("--- ").append(names.get(i)).append(": ").append(warnings.size()).append(" warnings, the last:\n");
            warnings.subList(Math.max(0, warnings.size() - 6), warnings.size())
                    .forEach(l -> why.append("  ").append(l, 0, Math.min(l.length(), 300)).append('\n'));
        }
        return why.append("full logs: ").append(logs.toAbsolutePath()).toString();
    }
}
