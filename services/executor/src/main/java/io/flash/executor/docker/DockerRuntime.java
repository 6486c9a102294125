package io.flash.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.*;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.engine.EngineRefusal;
import io.flash.schema.Mount;
import io.flash.schema.NetworkMode;
import io.flash.schema.TaskDefinition;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/** The executor's only door to the Docker engine (docker-java). */
public final class DockerRuntime implements ContainerRuntime, AutoCloseable {

    public static final String LABEL_NODE = "io.flash.node";
    public static final String LABEL_JOB = "io.flash.job";
    public static final String LABEL_TASK = "io.flash.task";
    public static final String LABEL_ATTEMPT = "io.flash.attempt";
    /** The platform a container belongs to (its Kafka cluster's id): two platforms can share one engine. */
    public static final String LABEL_PLATFORM = "io.flash.platform";
    /** Mount points inside every container. */
    public static final String WORKSPACE = "/workspace";
    public static final String WORK = "/work";
    /** nobody:nogroup — containers never run as root. */
    public static final String USER = TASK_USER;

    /** Processes and threads of one task: 128 per requested core, at least 256 (see docs/architecture.md). */
    public static long pidsLimit(double cpu, int pidsPerCpu) {
        return Math.max(256L, (long) Math.ceil(cpu * pidsPerCpu));
    }

    private static final Logger LOG = Logger.getLogger(DockerRuntime.class);
    /** How often a container being waited for is looked at directly (see stoppedWithoutWord). */
    private static final long STATE_LOOK_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final DockerClient docker;
    private volatile String platform = "";

    /** Labels every container this runtime makes, and limits what it finds, to one platform. */
    @Override
    public void forPlatform(String platformId) {
        this.platform = platformId;
    }
    /**
     * Containers Flash itself asked the engine to kill or remove, with when: their kill events are
     * not "from outside". Kept 10 minutes (events arrive within seconds), so the map stays small.
     */
    private final Map<String, Long> killedByFlash = new ConcurrentHashMap<>();

    private void noteOwnKill(String containerId) {
        long now = System.currentTimeMillis();
        killedByFlash.put(containerId, now);
        if (killedByFlash.size() > 1000) killedByFlash.values().removeIf(at -> now - at > 600_000);
    }

    private final RegistryAuth registryAuth;
    private final KernelOomLog kernelOoms;

    public DockerRuntime(String dockerHost) {
        this(dockerHost, RegistryAuth.parse(null));
    }

    public DockerRuntime(String dockerHost, RegistryAuth registryAuth) {
        this.registryAuth = registryAuth;
        DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(dockerHost).build();
        ApacheDockerHttpClient http = new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .maxConnections(200)
                .connectionTimeout(Duration.ofSeconds(10))
                .build();
        this.docker = DockerClientImpl.getInstance(config, http);
        this.kernelOoms = config.getDockerHost().getScheme().equals("unix") ? KernelOomLog.open(Path.of("/dev/kmsg")) : KernelOomLog.none();
    }

    @Override
    public void ping() {
        docker.pingCmd().exec();
    }

    public static String containerName(String attemptId) {
        return "flash-" + attemptId.replaceAll("[^a-zA-Z0-9_.-]", "_");
    }

    public boolean imagePresent(String image) {
        try {
            docker.inspectImageCmd(image).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Pulls the image when it is not present; a failure says what the registry said. */
    @Override
    public void ensureImage(String image, Duration timeout) throws InterruptedException {
        if (imagePresent(image)) {
            return;
        }
        var pull = docker.pullImageCmd(image);
        registryAuth.forImage(image).ifPresent(pull::withAuthConfig);
        boolean done;
        try {
            done = pull.exec(new ResultCallback.Adapter<PullResponseItem>() {
            }).awaitCompletion(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            throw new IllegalStateException("pulling " + image + " failed: " + e.getMessage(), e);
        }
        if (!done) {
            throw new IllegalStateException("pulling " + image + " took longer than " + timeout.toSeconds() + " s");
        }
    }

    @Override
    public String imageId(String image) {
        return docker.inspectImageCmd(image).exec().getId();
    }

    @Override
    public List<String> localImageTags() {
        List<String> tags = new ArrayList<>();
        for (Image image : docker.listImagesCmd().exec()) {
            if (image.getRepoTags() != null) {
                for (String tag : image.getRepoTags()) {
                    if (!tag.startsWith("<none>")) tags.add(tag);
                }
            }
        }
        return tags;
    }

    @Override
    public Optional<ContainerInfo> find(String attemptId) {
        try {
            InspectContainerResponse c = docker.inspectContainerCmd(containerName(attemptId)).exec();
            Map<String, String> labels = c.getConfig().getLabels();
            return Optional.of(new ContainerInfo(c.getId(), labels.get(LABEL_ATTEMPT), labels.get(LABEL_JOB),
                    labels.get(LABEL_TASK), c.getState().getStatus()));
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    /** Every container this node started, in any state. */
    @Override
    public List<ContainerInfo> containersOf(String nodeId) {
        List<ContainerInfo> found = new ArrayList<>();
        for (Container c : docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(LABEL_NODE, nodeId, LABEL_PLATFORM, platform)).exec()) {
            Map<String, String> labels = c.getLabels();
            found.add(new ContainerInfo(c.getId(), labels.get(LABEL_ATTEMPT), labels.get(LABEL_JOB), labels.get(LABEL_TASK), c.getState()));
        }
        return found;
    }

    /**
     * Creates (not starts) the attempt's container, with the task's cpu, memory and pids limits, no
     * network unless asked, and no capabilities.
     */
    /** @param command what the container runs: the task's command, or Flash's loop around it (streaming mode) */
    @Override
    public String create(String nodeId, String jobId, String taskId, String attemptId, TaskDefinition task, List<String> command,
                         Path workspace, Path work, int pidsPerCpu) {
        long memory = task.getResources().getMemoryBytes();
        List<Bind> binds = new ArrayList<>(List.of(new Bind(workspace.toString(), new Volume(WORKSPACE)), new Bind(work.toString(), new Volume(WORK))));
        for (Mount m : task.getMounts()) {
            // sources are in the job workspace, checked at submission (FileRules) and placed by the executor
            binds.add(new Bind(workspace.resolve(m.getSource()).toString(), new Volume(m.getPath()),
                    m.getReadOnly() ? AccessMode.ro : AccessMode.rw));
        }
        boolean tmpMounted = task.getMounts().stream().anyMatch(m -> m.getPath().equals("/tmp"));
        HostConfig host = HostConfig.newHostConfig()
                .withBinds(binds)
                .withTmpFs(tmpMounted ? Map.of() : Map.of("/tmp", "rw,nosuid,nodev,size=" + Math.max(16L << 20, memory / 2)))
                .withReadonlyRootfs(true)
                .withNanoCPUs(Math.max(1L, (long) (task.getResources().getCpu() * 1_000_000_000L)))
                .withMemory(memory)
                .withMemorySwap(memory)
                .withPidsLimit(pidsLimit(task.getResources().getCpu(), pidsPerCpu))
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges"))
                .withNetworkMode(task.getNetwork() == NetworkMode.BRIDGE ? "bridge" : "none");
        List<String> env = new ArrayList<>();
        task.getEnv().forEach((k, v) -> env.add(k + "=" + v));
        env.add("FLASH_JOB_ID=" + jobId);
        env.add("FLASH_TASK_ID=" + taskId);
        env.add("FLASH_ATTEMPT_ID=" + attemptId);
        env.add("FLASH_WORKSPACE=" + WORKSPACE);
        env.add("HOME=" + WORK);
        var cmd = docker.createContainerCmd(task.getImage())
                .withName(containerName(attemptId))
                .withCmd(command)
                .withEnv(env)
                .withLabels(Map.of(LABEL_NODE, nodeId, LABEL_JOB, jobId, LABEL_TASK, taskId, LABEL_ATTEMPT, attemptId,
                        LABEL_PLATFORM, platform))
                .withUser(USER)
                .withWorkingDir(task.getWorkdir() != null ? task.getWorkdir() : WORK)
                .withHostConfig(host);
        return cmd.exec().getId();
    }

    @Override
    public void start(String containerId) {
        docker.startContainerCmd(containerId).exec();
    }

    /**
     * Waits for the container to stop; kills it when the timeout passes first. Always returns: when
     * the engine has not stopped the container {@code killGrace} after its timeout kill, or after
     * {@code killRequested} turned true (a cancel, a fence), the exit says so in {@code unstoppable}
     * and the caller ends the attempt anyway.
     */
    @Override
    public Exit await(String containerId, Long timeoutSeconds, BooleanSupplier killRequested, Duration killGrace)
            throws IOException {
        long start = System.nanoTime();
        Long killedAt = null;
        boolean timedOut = false;
        String refused = null;
        // Our own latch: docker-java's timed awaitCompletion closes the stream when it times out.
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try (ResultCallback.Adapter<WaitResponse> waiting = docker.waitContainerCmd(containerId).exec(new ResultCallback.Adapter<>() {
            @Override
            public void onComplete() {
                stopped.countDown();
                super.onComplete();
            }

            @Override
            public void onError(Throwable e) {
                failed.set(e);
                stopped.countDown();
                super.onError(e);
            }
        })) {
            long lastLook = start;
            while (true) {
                try {
                    if (stopped.await(1, TimeUnit.SECONDS)) {
                        if (failed.get() != null) throw new IOException("the engine's wait for " + containerId + " failed: "
                                + engineWords(failed.get()), failed.get());
                        return exitOf(containerId, timedOut);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for " + containerId);
                }
                long now = System.nanoTime();
                if (now - lastLook >= STATE_LOOK_NANOS) {
                    lastLook = now;
                    if (stoppedWithoutWord(containerId)) return exitOf(containerId, timedOut);
                }
                if (killedAt == null && timeoutSeconds != null && now - start >= TimeUnit.SECONDS.toNanos(timeoutSeconds)) {
                    timedOut = true;
                    refused = kill(containerId);
                    killedAt = now;
                } else if (killedAt == null && killRequested.getAsBoolean()) {
                    killedAt = now;
                }
                if (killedAt != null && now - killedAt >= killGrace.toNanos()) {
                    return new Exit(-1, false, timedOut, "the engine did not stop the container within " + killGrace.toSeconds() + " s"
                            + (refused == null ? "" : " (it answered: " + refused + ")"));
                }
            }
        }
    }

    /**
     * The engine's wait stream is not trusted alone: in CI one attempt's container exited and the
     * wait never answered, so the attempt stayed RUNNING until the executor restarted. While
     * waiting, the container's state is read every {@link #STATE_LOOK_NANOS}; a container found
     * stopped ends the wait.
     */
    private boolean stoppedWithoutWord(String containerId) {
        try {
            Boolean running = docker.inspectContainerCmd(containerId).exec().getState().getRunning();
            if (Boolean.FALSE.equals(running)) {
                LOG.warnf("the engine's wait for container %s did not answer although it has stopped; its state ends the wait",
                        containerId);
                return true;
            }
        } catch (NotFoundException e) {
            return false; // the exit that follows says what became of it
        } catch (RuntimeException e) {
            // the engine does not answer now; the wait goes on and asks again
        }
        return false;
    }

    @Override
    public Exit exitOf(String containerId, boolean timedOut) {
        InspectContainerResponse.ContainerState state = docker.inspectContainerCmd(containerId).exec().getState();
        Long exitCode = state.getExitCodeLong();
        // Either source is enough: the engine misses a kill that comes before it watches the cgroup (2 to 4 of 10 OOM
        // tasks started at once), the kernel's record is rate-limited to 10 kills per 5 s.
        if (!timedOut && exitCode != null && exitCode != 0 && kernelOoms.killedIn(containerId)) {
            return new Exit(exitCode.intValue(), true, false);
        }
        // Without the kernel's record (another host's engine, a log this process cannot read): the engine can answer
        // the wait before it records an OOM kill, so a SIGKILLed exit is asked again.
        for (int retry = 0; retry < 5 && !timedOut && !Boolean.TRUE.equals(state.getOOMKilled())
                && state.getExitCodeLong() != null && state.getExitCodeLong() == 137; retry++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            state = docker.inspectContainerCmd(containerId).exec().getState();
        }
        Long code = state.getExitCodeLong();
        return new Exit(code == null ? -1 : code.intValue(), Boolean.TRUE.equals(state.getOOMKilled()), timedOut);
    }

    /**
     * Follows the container's stdout and stderr from its start until it exits, then reads back from
     * the engine's stored log whatever the follow stream missed ({@link CompleteLogs}); wait on the
     * returned follow.
     */
    @Override
    public LogFollow followLogs(String containerId, Consumer<byte[]> output) {
        return CompleteLogs.follow(docker, containerId, output);
    }

    /** The whole of one of the container's streams, written to {@code out} (a TES executor's stdout or stderr). */
    @Override
    public void writeStream(String containerId, boolean stdout, OutputStream out) throws IOException, InterruptedException {
        AtomicReference<IOException> failed = new AtomicReference<>();
        boolean done = docker.logContainerCmd(containerId).withStdOut(stdout).withStdErr(!stdout)
                .exec(new ResultCallback.Adapter<Frame>() {
                    @Override
                    public void onNext(Frame frame) {
                        try {
                            out.write(frame.getPayload());
                        } catch (IOException e) {
                            failed.compareAndSet(null, e);
                        }
                    }
                }).awaitCompletion(10, TimeUnit.MINUTES);
        if (failed.get() != null) throw failed.get();
        if (!done) throw new IOException("the engine did not hand over the container's output within 10 minutes");
    }

    /** The last {@code lines} lines of stdout and stderr, interleaved as written. */
    @Override
    public String tail(String containerId, int lines) throws InterruptedException {
        StringBuilder out = new StringBuilder();
        docker.logContainerCmd(containerId).withStdOut(true).withStdErr(true).withTail(lines)
                .exec(new ResultCallback.Adapter<Frame>() {
                    @Override
                    public void onNext(Frame frame) {
                        out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                    }
                }).awaitCompletion(30, TimeUnit.SECONDS);
        return out.toString();
    }

    /** Asks the engine to SIGKILL the container; never throws: returns the engine's refusal in words, or null. */
    @Override
    public String kill(String containerId) {
        noteOwnKill(containerId);
        try {
            docker.killContainerCmd(containerId).exec();
            return null;
        } catch (NotFoundException | ConflictException e) {
            return null; // already gone or already stopped
        } catch (RuntimeException e) {
            return engineWords(e);
        }
    }

    @Override
    public void remove(String containerId) {
        noteOwnKill(containerId); // a forced removal of a running container kills it
        try {
            docker.removeContainerCmd(containerId).withForce(true).exec();
        } catch (NotFoundException e) {
            // already removed
        }
    }

    /**
     * Follows the engine's kill events for this node's containers and hands on those Flash did not
     * ask for (container id, signal): a {@code docker kill}, {@code docker stop} or an engine
     * shutting containers down. A program that kills itself makes no kill event, only its exit.
     * The subscription is renewed when the engine's stream ends (engine restart).
     */
    @Override
    public AutoCloseable watchOutsideKills(String nodeId, BiConsumer<String, String> killed) {
        AtomicBoolean open = new AtomicBoolean(true);
        Thread watcher = new Thread(() -> {
            while (open.get()) {
                try (ResultCallback.Adapter<Event> events = docker.eventsCmd().withEventTypeFilter(EventType.CONTAINER)
                        .withEventFilter("kill").withLabelFilter(Map.of(LABEL_NODE, nodeId, LABEL_PLATFORM, platform))
                        .exec(new ResultCallback.Adapter<>() {
                            @Override
                            public void onNext(Event event) {
                                String id = event.getId();
                                if (id != null && !killedByFlash.containsKey(id)) {
                                    String signal = event.getActor() == null || event.getActor().getAttributes() == null ? null
                                            : event.getActor().getAttributes().get("signal");
                                    killed.accept(id, signal == null ? "?" : signal);
                                }
                            }
                        })) {
                    events.awaitCompletion();
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the engine went away; ask again below
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "engine-kill-events");
        watcher.setDaemon(true);
        watcher.start();
        return () -> {
            open.set(false);
            watcher.interrupt();
        };
    }


    /** What the engine said, without docker-java's "Status 500: {"message":...}" wrapping. */
    @Override
    public String words(Throwable failure) {
        return engineWords(failure);
    }

    @Override
    public EngineRefusal refusal(Throwable failure, String image) {
        return DockerRefusals.of(failure, image);
    }

    public static String engineWords(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        Matcher json = Pattern.compile("\\{\"message\":\"(.*)\"\\}").matcher(m);
        if (json.find()) m = json.group(1);
        return m.replaceFirst("^Status \\d+: ", "");
    }

    @Override
    public void close() throws Exception {
        kernelOoms.close();
        docker.close();
    }
}
