package io.flash.executor.attempt;

import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.engine.EngineRefusal;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskDefinition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A container engine in memory, for the node's lifecycle tests: each container runs a
 * {@link Program} — it prints, then exits with a code, is OOM-killed, or runs until it is killed
 * (by its timeout, a kill request, or from outside). Not docker-java mocked: the node's own port.
 */
public final class MemoryEngine implements ContainerRuntime {

    /** What a container does once started. */
    public record Program(String output, int exitCode, boolean oomKilled, boolean runsUntilKilled, Duration runs) {
        public Program(String output, int exitCode, boolean oomKilled, boolean runsUntilKilled) {
            this(output, exitCode, oomKilled, runsUntilKilled, Duration.ZERO);
        }

        public static Program exits(String output, int exitCode) {
            return new Program(output, exitCode, false, false);
        }

        /** Runs this long, then exits so (sooner when killed). */
        public static Program exitsAfter(String output, int exitCode, Duration runs) {
            return new Program(output, exitCode, false, false, runs);
        }

        public static Program oom() {
            return new Program("allocating\n", 137, true, false);
        }

        public static Program forever() {
            return new Program("working\n", 137, false, true);
        }
    }

    private record Container(String id, String attemptId, String jobId, String taskId, Program program, String[] status) {
    }

    private final Map<String, Program> programs = new ConcurrentHashMap<>();
    /** What a program does when its container starts (it writes files, say), by attempt. */
    private final Map<String, Runnable> onStart = new ConcurrentHashMap<>();
    private final Map<String, Container> containers = new ConcurrentHashMap<>();
    private final Set<String> killed = ConcurrentHashMap.newKeySet();
    final List<String> removed = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> started = ConcurrentHashMap.newKeySet();

    /** Set to make the next create fail with this exception, as the engine would. */
    RuntimeException refuseCreate;

    /** The program the attempt's container will run (default: print "ok", exit 0). */
    /** The attempt's program does this when it starts. */
    public void onStart(String attemptId, Runnable effect) {
        onStart.put(attemptId, effect);
    }

    public void program(String attemptId, Program program) {
        programs.put(attemptId, program);
    }

    String containerOf(String attemptId) {
        return "c-" + attemptId;
    }

    /** A kill by someone else (docker kill): the program ends with 137. */
    void killFromOutside(String attemptId) {
        killed.add(containerOf(attemptId));
    }

    public boolean exists(String attemptId) {
        return containers.containsKey(containerOf(attemptId));
    }

    /** Whether the attempt's container was ever started. */
    public boolean ran(String attemptId) {
        return started.contains(containerOf(attemptId));
    }

    @Override
    public void ping() {
    }

    @Override
    public void forPlatform(String platformId) {
    }

    @Override
    public void ensureImage(String image, Duration timeout) {
    }

    @Override
    public String imageId(String image) {
        return "sha256:" + Integer.toHexString(image.hashCode()); // one per name: this engine holds no image
    }

    @Override
    public List<String> localImageTags() {
        return List.of("flash/shell:1");
    }

    @Override
    public Optional<ContainerInfo> find(String attemptId) {
        Container c = containers.get(containerOf(attemptId));
        return c == null ? Optional.empty() : Optional.of(info(c));
    }

    @Override
    public List<ContainerInfo> containersOf(String nodeId) {
        return containers.values().stream().map(MemoryEngine::info).toList();
    }

    private static ContainerInfo info(Container c) {
        return new ContainerInfo(c.id(), c.attemptId(), c.jobId(), c.taskId(), c.status()[0]);
    }

    @Override
    public String create(String nodeId, String jobId, String taskId, String attemptId, TaskDefinition task, List<String> command,
                         Path workspace, Path work, int pidsPerCpu) {
        if (refuseCreate != null) throw refuseCreate;
        String id = containerOf(attemptId);
        containers.put(id, new Container(id, attemptId, jobId, taskId, programs.getOrDefault(attemptId, Program.exits("ok\n", 0)),
                new String[]{"created"}));
        return id;
    }

    @Override
    public void start(String containerId) {
        started.add(containerId);
        Runnable effect = onStart.get(containers.get(containerId).attemptId());
        if (effect != null) effect.run();
        containers.get(containerId).status()[0] = "running";
    }

    @Override
    public Exit await(String containerId, Long timeoutSeconds, BooleanSupplier killRequested, Duration killGrace)
            throws InterruptedException {
        Container c = containers.get(containerId);
        long deadline = timeoutSeconds == null ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        boolean timedOut = false;
        long ends = System.nanoTime() + c.program().runs().toNanos();
        while (System.nanoTime() < ends && !killed.contains(containerId) && !killRequested.getAsBoolean()) {
            Thread.sleep(10);
        }
        while (c.program().runsUntilKilled() && !killed.contains(containerId)) {
            if (killRequested.getAsBoolean()) break;
            if (System.nanoTime() > deadline) {
                timedOut = true;
                break;
            }
            Thread.sleep(10);
        }
        c.status()[0] = "exited";
        boolean stopped = killed.contains(containerId) || c.program().runsUntilKilled();
        return new Exit(stopped ? 137 : c.program().exitCode(), c.program().oomKilled(), timedOut);
    }

    @Override
    public Exit exitOf(String containerId, boolean timedOut) {
        Container c = containers.get(containerId);
        return new Exit(c.program().exitCode(), c.program().oomKilled(), timedOut);
    }

    @Override
    public LogFollow followLogs(String containerId, Consumer<byte[]> output) {
        output.accept(containers.get(containerId).program().output().getBytes(StandardCharsets.UTF_8));
        return new LogFollow() {
            @Override
            public boolean awaitCompletion(long time, TimeUnit unit) {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void writeStream(String containerId, boolean stdout, java.io.OutputStream out) throws java.io.IOException {
        out.write((stdout ? containers.get(containerId).program().output() : "").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public String tail(String containerId, int lines) {
        return containers.get(containerId).program().output();
    }

    @Override
    public String words(Throwable failure) {
        return String.valueOf(failure.getMessage());
    }

    /** An engine in memory refuses nothing of a task's: every failure is the platform's. */
    @Override
    public EngineRefusal refusal(Throwable failure, String image) {
        return new EngineRefusal(FailureClass.INFRASTRUCTURE, words(failure));
    }

    @Override
    public String kill(String containerId) {
        killed.add(containerId);
        return null;
    }

    @Override
    public void remove(String containerId) {
        containers.remove(containerId);
        removed.add(containerId);
    }

    @Override
    public AutoCloseable watchOutsideKills(String nodeId, BiConsumer<String, String> killed) {
        return () -> {
        };
    }
}
