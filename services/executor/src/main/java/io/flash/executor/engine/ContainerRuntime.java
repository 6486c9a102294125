package io.flash.executor.engine;

import io.flash.schema.TaskDefinition;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a node needs of a container engine (the Docker engine in production, {@code DockerRuntime};
 * an engine in memory in the node's tests). Containers carry their attempt's labels, so a node
 * restarted at any point finds its own again.
 */
public interface ContainerRuntime {

    /** nobody:nogroup — the identity every task container runs as (never root); what Flash places for a task is theirs. */
    String TASK_USER = "65534:65534";


    /** What the engine says about one of our containers. */
    record ContainerInfo(String id, String attemptId, String jobId, String taskId, String status) {
        public boolean running() {
            return "running".equals(status);
        }

        public boolean created() {
            return "created".equals(status);
        }
    }

    /**
     * How a container ended. {@code unstoppable} holds what went wrong when the engine did not stop
     * it within the kill grace after a timeout or a kill (the container may still exist); null
     * when it exited.
     */
    record Exit(int exitCode, boolean oomKilled, boolean timedOut, String unstoppable) {
        public Exit(int exitCode, boolean oomKilled, boolean timedOut) {
            this(exitCode, oomKilled, timedOut, null);
        }
    }

    /** A container's output being followed until it exits. */
    interface LogFollow extends AutoCloseable {
        boolean awaitCompletion(long time, TimeUnit unit) throws InterruptedException;

        @Override
        void close() throws IOException;
    }

    /** Answers, or throws saying why the engine cannot be reached. */
    void ping();

    /** Only containers of this platform (Kafka cluster id) are this node's. */
    void forPlatform(String platformId);

    void ensureImage(String image, Duration timeout) throws InterruptedException;

    /**
     * The identity of a present image for cache keys (docs/caching.md): its ID, the digest of its
     * configuration, which is the same on every engine that pulled the same image and changes when a
     * tag is pushed again with other content.
     */
    String imageId(String image);

    List<String> localImageTags();

    Optional<ContainerInfo> find(String attemptId);

    List<ContainerInfo> containersOf(String nodeId);

    /** A container for the attempt, created and not started; its id. */
    String create(String nodeId, String jobId, String taskId, String attemptId, TaskDefinition task, List<String> command,
                  Path workspace, Path work, int pidsPerCpu);

    void start(String containerId);

    /** Waits for the exit, killing the container after its timeout or once a kill is requested. */
    Exit await(String containerId, Long timeoutSeconds, BooleanSupplier killRequested, Duration killGrace)
            throws IOException, InterruptedException;

    Exit exitOf(String containerId, boolean timedOut);

    LogFollow followLogs(String containerId, Consumer<byte[]> output);

    void writeStream(String containerId, boolean stdout, OutputStream out) throws IOException, InterruptedException;

    String tail(String containerId, int lines) throws InterruptedException;

    /** @return the engine's refusal in words, or null when the kill was sent */
    String kill(String containerId);

    void remove(String containerId);

    /** The engine's own words for one of its failures, without its transport's wrapping. */
    String words(Throwable failure);

    /**
     * Whose fault the engine's failure to prepare or start a container is, in its words.
     * @param image the image being pulled, or null when the failure is not a pull's
     */
    EngineRefusal refusal(Throwable failure, String image);

    /** Kill events of this node's containers that Flash did not ask for: (container id, signal). */
    AutoCloseable watchOutsideKills(String nodeId, BiConsumer<String, String> killed);
}
