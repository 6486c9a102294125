package io.flash.executor.attempt;

import io.flash.common.cache.CacheKeys;
import io.flash.common.errors.Messages;
import io.flash.executor.cache.CacheIndex;
import io.flash.executor.cache.CacheMeters;
import io.flash.executor.cache.CachedResults;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.engine.EngineRefusal;
import io.flash.executor.files.Beneath;
import io.flash.executor.files.Published;
import io.flash.executor.files.Staging;
import io.flash.executor.files.StagingFailure;
import io.flash.executor.files.UnitKeys;
import io.flash.executor.files.WorkDirs;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.*;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Runs one attempt to its end: image, container, start, wait, logs, exit, cleanup. Reports STARTED
 * and exactly one final event; the container is removed only after the final event is written, so
 * an executor restarted at any point finds it again by its labels.
 */
public final class AttemptRunner {

    private static final Logger LOG = Logger.getLogger(AttemptRunner.class);
    private static final int MAX_TAIL_CHARS = 4096;
    private static final String STREAM_SCRIPT = ".flash/stream.sh";

    private final ContainerRuntime docker;
    private final NodeSettings settings;
    private final AttemptReporter reporter;
    /** attempt id → why it was killed; an exit after a kill is reported as the kill says, not as the program's failure. */
    private final Map<String, Kill> kills;

    private final UsageSampler usage;
    private final WorkDirs.Layout workDirs;
    private final Staging staging;
    private final UnitKeys keys;
    private final CacheIndex cache;
    private final CachedResults cachedResults;
    private final CacheMeters cacheMeters;
    /** Per attempt: the index entry found but not usable, told with its start so the planner drops it. */
    private final Map<String, String> rejectedEntries = new ConcurrentHashMap<>();
    /** Container creation and start, timed separately (the image pull is not in them). */
    private final Timer createTime, startTime;
    /** Streaming attempts between prepare and start; what went wrong feeding one, to report at its exit. */
    private final Map<String, StreamFeeder> feeders = new ConcurrentHashMap<>();
    private final Map<String, StagingFailure> streamFailures = new ConcurrentHashMap<>();
    private final StuckContainers stuck;
    private final OutsideKills outsideKills;
    private final ExecutorService feeding = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "stream-feeder");
        t.setDaemon(true);
        return t;
    });

    public AttemptRunner(ContainerRuntime docker, NodeSettings settings, AttemptReporter reporter, Map<String, Kill> kills,
                  UsageSampler usage, Staging staging, StuckContainers stuck, OutsideKills outsideKills,
                  MeterRegistry meters) {
        this(docker, settings, reporter, kills, usage, staging, stuck, outsideKills, meters, CacheIndex.EMPTY);
    }

    public AttemptRunner(ContainerRuntime docker, NodeSettings settings, AttemptReporter reporter, Map<String, Kill> kills,
                  UsageSampler usage, Staging staging, StuckContainers stuck, OutsideKills outsideKills,
                  MeterRegistry meters, CacheIndex cache) {
        this.cache = cache;
        this.cachedResults = new CachedResults(settings.workRoot().resolve("jobs"), staging.scratch());
        this.cacheMeters = new CacheMeters(meters);
        this.stuck = stuck;
        this.outsideKills = outsideKills;
        this.createTime = containerTimer(meters, "create");
        this.startTime = containerTimer(meters, "start");
        this.docker = docker;
        this.settings = settings;
        this.reporter = reporter;
        this.kills = kills;
        this.usage = usage;
        this.workDirs = new WorkDirs.Layout(settings.workRoot(), staging.scratch());
        this.staging = staging;
        this.keys = new UnitKeys(staging.scratch(), staging::store);
    }

    /**
     * A fresh attempt: pulls the image if needed and creates the container. Returns its id, or null
     * after reporting the attempt FAILED as an infrastructure failure.
     */
    public String prepare(Assignment assignment) throws Exception {
        TaskDefinition task = assignment.getTask();
        try {
            docker.ensureImage(task.getImage(), settings.pullTimeout());
            WorkDirs dirs = workDirs.create(assignment.getJobId(), assignment.getAttemptId());
            StagingFailure notStaged = staging.stageInputs(assignment.getJobId(), task, dirs.work());
            if (notStaged != null) {
                finish(AttemptRef.of(assignment), Ending.failed(null, notStaged.failureClass(), notStaged.reason()), null);
                return null;
            }
            Optional<String> notKeyed = keys.key(assignment.getAttemptId(), task, dirs.workspace(), docker::imageId, System.currentTimeMillis());
            notKeyed.ifPresent(why -> LOG.debugf("attempt %s has no cache key: %s", assignment.getAttemptId(), why));
            if (notKeyed.isEmpty() && servedFromCache(assignment)) return null;
            List<String> command = task.getCommand();
            if (task.getStream() != null) {
                Beneath attemptDir = new Beneath(dirs.work(), staging.scratch());
                StreamFeeder feeder = new StreamFeeder(staging.store(), task.getStream(), attemptDir);
                feeder.prepare();
                attemptDir.write(STREAM_SCRIPT, StreamFeeder.script(task.getCommand()).getBytes(StandardCharsets.UTF_8));
                feeders.put(assignment.getAttemptId(), feeder);
                command = List.of("/bin/sh", "/work/" + STREAM_SCRIPT);
            }
            List<String> finalCommand = command;
            TaskDefinition placed = placedOn(task);
            return createTime.recordCallable(() -> docker.create(settings.nodeId(), assignment.getJobId(), assignment.getTaskId(),
                    assignment.getAttemptId(), placed, finalCommand, dirs.workspace(), dirs.work(), settings.sandbox().pidsPerCpu()));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            EngineRefusal refusal = docker.refusal(e, task.getImage());
            finish(AttemptRef.of(assignment), Ending.failed(null, refusal.failureClass(),
                    "could not prepare the container: " + refusal.reason()), null);
            return null;
        }
    }

    /**
     * A unit whose key the index holds in its scope, young enough for its job, is served from there:
     * its outputs copied into this job's workspace and checked, SUCCEEDED reported without a
     * container. An entry that cannot be used is remembered, told with the start, and the unit runs.
     */
    private boolean servedFromCache(Assignment assignment) throws Exception {
        TaskDefinition task = assignment.getTask();
        String attemptId = assignment.getAttemptId();
        if (task.getCacheScope() == null) return false;
        String key = keys.keyOf(attemptId).orElseThrow();
        Long maxAge = task.getCacheMaxAgeSeconds();
        long now = System.currentTimeMillis();
        Optional<CacheEntry> found = cache.get(task.getCacheScope(), key)
                .filter(e -> maxAge == null || now - e.getCreatedAt() <= maxAge * 1000);
        if (found.isEmpty()) {
            cacheMeters.miss();
            return false;
        }
        CacheEntry entry = found.get();
        Optional<String> unusable = cachedResults.restore(entry, assignment.getJobId());
        if (unusable.isPresent()) {
            cacheMeters.unusable();
            LOG.infof("attempt %s runs: its cached result is not usable (%s)", attemptId, unusable.get());
            rejectedEntries.put(attemptId, CacheKeys.entryId(task.getCacheScope(), key));
            return false;
        }
        keys.take(attemptId);
        cacheMeters.hit(entry);
        reporter.report(event(AttemptRef.of(assignment), AttemptState.SUCCEEDED).setExitCode(0)
                .setCacheKey(key).setOutputFiles(entry.getOutputs()).setCachedFrom(entry.getAttemptId())
                .setOutputs(entry.getOutputs().stream().map(o -> o.getPath() + " (" + o.getSizeBytes() + " bytes)").toList())
                .build());
        LOG.infof("attempt %s SUCCEEDED from the cache (the outputs of %s)", attemptId, entry.getAttemptId());
        workDirs.removeAttempt(attemptId);
        return true;
    }

    /** A container found created but not started (the executor stopped between the two). */
    public void startAndWait(AttemptRef ref, String containerId, Long timeoutSeconds, Staging.Outputs outputs) throws Exception {
        try {
            startTime.record(() -> docker.start(containerId));
        } catch (Exception e) {
            EngineRefusal refusal = docker.refusal(e, null);
            finish(ref, Ending.failed(null, refusal.failureClass(), "the engine could not start the container: " + refusal.reason()),
                    containerId);
            return;
        }
        reporter.report(event(ref, AttemptState.STARTED).setCacheRejected(rejectedEntries.remove(ref.attemptId())).build());
        String attemptId = ref.attemptId();
        StreamFeeder feeder = feeders.remove(attemptId);
        AtomicBoolean running = new AtomicBoolean(true);
        if (feeder != null) {
            feeding.submit(() -> feed(feeder, attemptId, containerId, running));
        }
        try {
            awaitRunning(ref, containerId, timeoutSeconds, outputs);
        } finally {
            running.set(false);
        }
    }

    private static Timer containerTimer(MeterRegistry meters, String phase) {
        return Timer.builder("flash.executor.container").tag("phase", phase)
                .description("time the engine takes to " + phase + " an attempt's container").publishPercentiles(0.5, 0.95)
                .register(meters);
    }

    private void feed(StreamFeeder feeder, String attemptId, String containerId, AtomicBoolean running) {
        try {
            int delivered = feeder.feed(running::get);
            LOG.infof("attempt %s: streamed %d objects, at most %d on the node at once", attemptId, delivered, feeder.peakFiles());
        } catch (Exception e) {
            streamFailures.put(attemptId, e instanceof ObjectStore.NotFound || e instanceof Beneath.Refused
                    ? new StagingFailure(FailureClass.USER, "streaming its inputs failed: " + message(e))
                    : StagingFailure.unexpected("streaming its inputs failed", e));
            docker.kill(containerId);
        }
    }

    /** What was seen of an attempt while it ran: the last lines of its output, its last cgroup reading. */
    private record Observed(String tail, CgroupUsage.Reading usage) {
        static final Observed NOTHING = new Observed(null, null);
    }

    /**
     * A running container: wait for it, then report. Used for fresh starts and after an executor
     * restart (then {@code outputs} is {@link Staging.Outputs#NONE}: the assignment is not at hand).
     */
    public void awaitRunning(AttemptRef ref, String containerId, Long timeoutSeconds, Staging.Outputs outputs) throws Exception {
        String jobId = ref.jobId(), taskId = ref.taskId(), attemptId = ref.attemptId();
        Path attemptWork = settings.workRoot().resolve("attempts").resolve(attemptId);
        if (outputs == Staging.Outputs.NONE && Files.exists(attemptWork.resolve(STREAM_SCRIPT))
                && !Files.exists(attemptWork.resolve(".flash/done"))) {
            // Its feeder died with the previous executor process; the loop would wait for ever.
            streamFailures.put(attemptId, new StagingFailure(FailureClass.INFRASTRUCTURE,
                    "the executor restarted while streaming its inputs"));
            docker.kill(containerId);
        }
        UsageSampler.Watch watch = usage.watch(settings.nodeId(), jobId, taskId, attemptId, containerId);

        ContainerRuntime.Exit exit;
        CgroupUsage.Reading used;
        String tail;
        try (LogStreamer logs = new LogStreamer(settings.nodeId(), jobId, taskId, attemptId, workDirs.openLog(jobId, attemptId),
                chunk -> reporter.log(chunk, chunk.getLast()), settings.logChunkBytes(), settings.logBytesPerSecond(),
                settings.logTailLines())) {
            var follower = docker.followLogs(containerId, bytes -> {
                try {
                    logs.accept(bytes);
                } catch (Exception e) {
                    LOG.warnf("log of %s: %s", attemptId, message(e));
                }
            });
            var flusher = usage.timer().scheduleAtFixedRate(() -> {
                try {
                    logs.flush();
                } catch (Exception e) {
                    LOG.warnf("log of %s: %s", attemptId, message(e));
                }
            }, 250, 250, TimeUnit.MILLISECONDS);
            try {
                exit = docker.await(containerId, timeoutSeconds, () -> kills.containsKey(attemptId), settings.sandbox().killGrace());
                if (exit.unstoppable() == null) follower.awaitCompletion(30, TimeUnit.SECONDS);
            } finally {
                flusher.cancel(false);
                follower.close();
                used = watch.stop();
            }
            logs.finish(); // the whole log has left the node before the exit is reported
            tail = logs.tail();
        }
        StagingFailure notRedirected = redirect(jobId, attemptId, containerId, outputs);
        if (notRedirected != null && exit.exitCode() == 0 && !exit.timedOut()) streamFailures.putIfAbsent(attemptId, notRedirected);
        reportExit(ref, containerId, exit, timeoutSeconds, outputs, new Observed(tail, used));
    }

    /**
     * Streams a task asked to have in files (TES stdout/stderr), written once the container stopped,
     * whatever its exit. @return why one could not be written (a link the task made: its own failure)
     */
    private StagingFailure redirect(String jobId, String attemptId, String containerId, Staging.Outputs outputs) {
        StagingFailure first = null;
        for (boolean stdout : new boolean[]{true, false}) {
            StagingFailure failure = staging.writeRedirected(jobId, stdout ? outputs.stdoutTo() : outputs.stderrTo(),
                    out -> docker.writeStream(containerId, stdout, out));
            if (failure == null) continue;
            LOG.warnf("attempt %s: %s", attemptId, failure.reason());
            if (first == null) first = failure;
        }
        return first;
    }

    /** A container that already stopped: report how it ended. */
    public void reportExit(AttemptRef ref, String containerId, ContainerRuntime.Exit exit, Long timeoutSeconds) throws Exception {
        reportExit(ref, containerId, exit, timeoutSeconds, Staging.Outputs.NONE, Observed.NOTHING);
    }

    private void reportExit(AttemptRef ref, String containerId, ContainerRuntime.Exit exit, Long timeoutSeconds,
                            Staging.Outputs outputs, Observed observed) throws Exception {
        String attemptId = ref.attemptId();
        Kill kill = kills.remove(attemptId);
        StagingFailure streamFailure = streamFailures.remove(attemptId);
        String unstoppable = exit.unstoppable() == null ? "" : "; " + exit.unstoppable();
        String outside;
        if (exit.unstoppable() != null) {
            stuck.add(containerId, attemptId, exit.unstoppable());
        }
        Ending ending;
        List<String> published = List.of();
        if (kill != null && kill.cause() == FailureClass.CANCELLED) {
            ending = new Ending(AttemptState.CANCELLED, exit.exitCode(), FailureClass.CANCELLED, kill.reason() + unstoppable);
        } else if (kill != null) {
            ending = Ending.failed(exit.exitCode(), kill.cause(), kill.reason() + unstoppable);
        } else if (streamFailure != null) {
            ending = Ending.failed(exit.exitCode(), streamFailure.failureClass(), streamFailure.reason());
        } else if (exit.timedOut()) {
            ending = Ending.failed(exit.exitCode(), FailureClass.TIMEOUT, "killed after its timeout of " + timeoutSeconds + " s" + unstoppable);
        } else if (exit.unstoppable() != null) {
            ending = Ending.failed(null, FailureClass.INFRASTRUCTURE, exit.unstoppable());
        } else if (exit.exitCode() == 0) {
            // A child killed for memory that the program survived is the program's business.
            Published outputsPublished = staging.publishOutputs(ref.jobId(), outputs);
            StagingFailure notPublished = outputsPublished.failure();
            ending = notPublished == null ? new Ending(AttemptState.SUCCEEDED, 0, null, null)
                    : Ending.failed(0, notPublished.failureClass(), notPublished.reason());
            if (notPublished == null) published = outputsPublished.outputs();
        } else if (exit.oomKilled()) {
            ending = Ending.failed(exit.exitCode(), FailureClass.OOM_KILLED, "the kernel killed it for exceeding its memory limit");
        } else if ((outside = outsideKills.take(containerId, exit.exitCode(), Duration.ofSeconds(1))) != null) {
            ending = Ending.failed(exit.exitCode(), FailureClass.INFRASTRUCTURE, "the container was killed from outside Flash (signal "
                    + outside + ": docker kill, docker stop or an engine shutdown); retried without spending the task's attempts");
        } else {
            ending = Ending.failed(exit.exitCode(), FailureClass.USER, null);
        }
        finish(ref, ending, containerId, observed, published);
    }

    /** Something broke while the attempt was watched: report it rather than leave it open. */
    public void reportBroken(AttemptRef ref, Exception cause) throws Exception {
        String attemptId = ref.attemptId();
        String containerId = null;
        try {
            containerId = docker.find(attemptId).map(ContainerRuntime.ContainerInfo::id).orElse(null);
            if (containerId != null) docker.kill(containerId);
        } catch (RuntimeException engineDown) {
            LOG.warnf("attempt %s: the engine does not answer (%s); reporting it anyway", attemptId, message(engineDown));
        }
        finish(ref, Ending.failed(null, FailureClass.INFRASTRUCTURE, "the executor lost track of the container: " + message(cause)),
                containerId);
    }

    /** How an attempt ended, as its final event says. */
    private record Ending(AttemptState state, Integer exitCode, FailureClass failureClass, String reason) {
        static Ending failed(Integer exitCode, FailureClass failureClass, String reason) {
            return new Ending(AttemptState.FAILED, exitCode, failureClass, reason);
        }
    }

    private void finish(AttemptRef ref, Ending ending, String containerId) throws Exception {
        finish(ref, ending, containerId, Observed.NOTHING, List.of());
    }

    private void finish(AttemptRef ref, Ending ending, String containerId, Observed observed, List<String> outputsFound)
            throws Exception {
        String attemptId = ref.attemptId();
        AttemptState state = ending.state();
        Integer exitCode = ending.exitCode();
        String tail = observed.tail();
        if (tail == null && containerId != null) {
            try {
                tail = trimTail(docker.tail(containerId, settings.logTailLines()));
            } catch (Exception e) {
                LOG.warnf("could not read the output of %s: %s", attemptId, message(e));
            }
        }
        CgroupUsage.Reading used = observed.usage();
        AttemptEvent.Builder event = event(ref, state);
        Optional<UnitKeys.Keyed> keyed = keys.keyed(attemptId);
        if (state == AttemptState.SUCCEEDED && keyed.isPresent()) {
            try {
                event.setOutputFiles(UnitKeys.outputs(keyed.get())).setUndeclaredWrites(keys.undeclaredWrites(keyed.get()))
                        .setCacheKey(keyed.get().key());
            } catch (IOException e) {
                LOG.warnf("attempt %s: its outputs could not be read for its cache entry (%s); reported without a key", attemptId, message(e));
            }
        }
        keys.take(attemptId);
        reporter.report(event
                .setExitCode(exitCode).setFailureClass(ending.failureClass()).setReason(ending.reason()).setStdoutTail(tail)
                .setOutputs(outputsFound)
                .setPeakMemoryBytes(used == null ? null : used.peakMemoryBytes())
                .setCpuSeconds(used == null ? null : used.cpuSeconds()).build());
        LOG.infof("attempt %s %s%s", attemptId, state, exitCode == null ? "" : " (exit " + exitCode + ")");
        if (containerId != null) {
            try {
                docker.remove(containerId);
            } catch (RuntimeException e) {
                stuck.add(containerId, attemptId, "the engine could not remove it: " + docker.words(e));
            }
        }
        workDirs.removeAttempt(attemptId);
    }

    private AttemptEvent.Builder event(AttemptRef ref, AttemptState state) {
        return ref.event(settings.nodeId(), state);
    }

    private static String trimTail(String text) {
        return text.length() <= MAX_TAIL_CHARS ? text : text.substring(text.length() - MAX_TAIL_CHARS);
    }

    public static String message(Throwable e) {
        return Messages.of(e);
    }

    /** The task as it runs here: its environment also names the framework and node (as on a batch cluster's). */
    private TaskDefinition placedOn(TaskDefinition task) {
        Map<String, String> env = new LinkedHashMap<>(task.getEnv());
        env.put("FLASH_FRAMEWORK_ID", settings.frameworkId());
        env.put("FLASH_NODE_ID", settings.nodeId());
        return TaskDefinition.newBuilder(task).setEnv(env).build();
    }
}
