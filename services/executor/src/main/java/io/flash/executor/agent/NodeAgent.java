package io.flash.executor.agent;

import io.flash.common.resources.Resources;
import io.flash.executor.cache.CacheIndex;
import io.flash.executor.attempt.AttemptRef;
import io.flash.executor.attempt.AttemptReporter;
import io.flash.executor.attempt.AttemptRunner;
import io.flash.executor.attempt.CgroupUsage;
import io.flash.executor.attempt.Kill;
import io.flash.executor.attempt.NodeSettings;
import io.flash.executor.attempt.OutsideKills;
import io.flash.executor.attempt.StuckContainers;
import io.flash.executor.attempt.UsageSampler;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.files.AddressRule;
import io.flash.executor.files.Scratch;
import io.flash.executor.files.Staging;
import io.flash.executor.files.TaskOwner;
import io.flash.executor.store.InputCache;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.*;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.*;
import java.util.concurrent.*;
import org.jboss.logging.Logger;

/**
 * One compute node. Reads its own assignments through its {@link FrameworkLink}, creates each
 * attempt's container before committing past its assignment, runs it on a worker thread, reports
 * through the link, and heartbeats its capacity. At-least-once and idempotent by attempt id: the
 * container's name is derived from the attempt id.
 */
public final class NodeAgent implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(NodeAgent.class);

    private final NodeSettings settings;
    private final ContainerRuntime docker;
    private final FrameworkLink link;
    private final ScheduledExecutorService samplers = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "usage-sampler");
        t.setDaemon(true);
        return t;
    });
    private final RunningAttempts running = new RunningAttempts();
    private final StuckContainers stuck = new StuckContainers();
    private final StuckAttempts stuckAttempts = new StuckAttempts(Duration.ofSeconds(60));
    private final OutsideKills outsideKills = new OutsideKills();
    private AutoCloseable killWatch;
    private final Map<String, Kill> kills = new ConcurrentHashMap<>();
    private final Leaving leaving = new Leaving();
    private volatile boolean gone;
    private volatile Runnable onLeave = () -> { };
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "attempt-worker");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService preparers = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "attempt-preparer");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "node-heartbeat");
        t.setDaemon(true);
        return t;
    });
    private final AttemptRunner runner;
    private final long startedAt = System.currentTimeMillis();
    private volatile List<String> images = List.of();
    private ObjectStore objectStore;
    private volatile long lastHeartbeatAcked = System.currentTimeMillis();
    /** Meters made before {@link #bindMetrics} reach the service's registry once it is bound. */
    private final CompositeMeterRegistry meters =
            new CompositeMeterRegistry();
    private InputCache inputCache;
    private volatile boolean stopping;
    private Thread pollThread;

    public NodeAgent(NodeSettings settings, ContainerRuntime docker, FrameworkLink link) throws IOException {
        this(settings, docker, link, CacheIndex.EMPTY);
    }

    /** @param cache the task-result cache's index, where units are looked up before they run (docs/caching.md) */
    public NodeAgent(NodeSettings settings, ContainerRuntime docker, FrameworkLink link, CacheIndex cache) throws IOException {
        this.settings = settings;
        this.docker = docker;
        this.link = link;
        UsageSampler usage = new UsageSampler(new CgroupUsage(settings.cgroupRoot()), samplers,
                settings.usageInterval(), link::usage);
        this.runner = new AttemptRunner(docker, settings, new AttemptReporter() {
            @Override
            public void report(AttemptEvent event) throws Exception {
                link.report(event).get(30, TimeUnit.SECONDS);
            }

            @Override
            public void log(LogChunk chunk, boolean await) throws Exception {
                var sent = link.log(chunk);
                if (await) sent.get(30, TimeUnit.SECONDS);
            }
        }, kills, usage, new Staging(settings.workRoot(), this::objectStore, this::inputCache, settings.sharedRoot(),
                new Scratch(settings.workRoot(), settings.nodeId(), TaskOwner.of(ContainerRuntime.TASK_USER)), AddressRule.of(settings.fetchAllow())),
                stuck, outsideKills, meters, cache);
    }

    public void start() throws InterruptedException {
        docker.ping();
        docker.forPlatform(link.platformId());
        killWatch = docker.watchOutsideKills(settings.nodeId(), (containerId, signal) -> {
            LOG.warnf("container %s was killed from outside Flash (signal %s)", containerId, signal);
            outsideKills.record(containerId, signal);
        });
        String reading = link.open(); // before the first heartbeat
        reconcile();
        refreshImages();
        timers.scheduleAtFixedRate(this::heartbeatQuietly, 0, settings.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS);
        timers.scheduleAtFixedRate(this::refreshImages, 30, 30, TimeUnit.SECONDS);
        timers.scheduleAtFixedRate(() -> stuck.sweep(docker::remove), 10, 10, TimeUnit.SECONDS);
        timers.scheduleAtFixedRate(this::followReclaim, 1, 1, TimeUnit.SECONDS);
        scheduleOwnReclaim();
        timers.scheduleAtFixedRate(this::watchForStuckAttemptsQuietly, 30, 30, TimeUnit.SECONDS);
        pollThread = new Thread(this::pollLoop, "assignments-" + settings.nodeId());
        pollThread.start();
        if (!settings.objectStore().endpoint().isBlank()) timers.execute(this::checkObjectStore);
        LOG.infof("node %s serves framework %s: %s cpu, %d MiB, reading %s", settings.nodeId(), settings.frameworkId(),
                settings.capacity().getCpu(), settings.capacity().getMemoryBytes() >> 20, reading);
    }

    /** Once at start: a store that cannot work is the operator's to mend, said before a task fails on it. */
    private void checkObjectStore() {
        String problem = objectStore().problem();
        if (problem == null) {
            LOG.infof("object store %s answers: s3:// inputs, outputs and job stores work", settings.objectStore().endpoint());
        } else {
            LOG.errorf("object store %s: %s; tasks that use s3:// will fail as UNSCHEDULABLE until it is mended",
                    settings.objectStore().endpoint(), problem);
        }
    }

    /** After a restart: every container of this node and platform is re-attached, started, or reported. */
    private void reconcile() {
        for (ContainerRuntime.ContainerInfo c : docker.containersOf(settings.nodeId())) {
            if (c.attemptId() == null) continue;
            running.claim(c.attemptId(), new RunningAttempts.Attempt(c.jobId(), c.taskId(), Resources.zero()));
            LOG.infof("reconciling attempt %s (container %s)", c.attemptId(), c.status());
            AttemptRef ref = AttemptRef.of(c);
            workers.submit(() -> guard(ref, () -> {
                if (c.running()) {
                    runner.awaitRunning(ref, c.id(), null, Staging.Outputs.NONE);
                } else if (c.created()) {
                    runner.startAndWait(ref, c.id(), null, Staging.Outputs.NONE);
                } else {
                    runner.reportExit(ref, c.id(), docker.exitOf(c.id(), false), null);
                }
            }));
        }
    }

    /**
     * Containers of one batch are prepared in parallel (the engine answers slowly, and one at a time
     * would cap a node at a few starts per second); the batch is committed only once every container
     * of it exists, so a crash re-reads rather than loses an assignment.
     */
    private void pollLoop() {
        try {
            while (!stopping) {
                List<FrameworkLink.Delivery> deliveries = link.poll(Duration.ofMillis(500));
                if (deliveries.isEmpty()) continue;
                List<Future<?>> batch = new ArrayList<>();
                List<Assignment> killed = new ArrayList<>();
                long next = -1;
                for (FrameworkLink.Delivery delivery : deliveries) {
                    next = delivery.next();
                    Assignment assignment = delivery.assignment();
                    if (assignment == null) continue;
                    if (assignment.getAction() == AssignmentAction.KILL) {
                        killed.add(assignment); // after the batch's starts, so a kill never overtakes its run
                    } else if (assignment.getAction() == AssignmentAction.DRAIN) {
                        drain(assignment.getReason() == null ? "returned by its provider" : assignment.getReason());
                    } else if (assignment.getAction() == AssignmentAction.RECLAIM) {
                        noticeReclaim(assignment.getLeaveAt() == null ? System.currentTimeMillis() : assignment.getLeaveAt(),
                                assignment.getReason() == null ? "reclaimed by its provider" : assignment.getReason());
                    } else if (running.claim(assignment.getAttemptId(), new RunningAttempts.Attempt(assignment.getJobId(),
                            assignment.getTaskId(), assignment.getTask().getResources()))) {
                        // claimed here, not on the preparer thread: the next heartbeat lists it even while it waits for a thread
                        batch.add(preparers.submit(() -> {
                            try {
                                run(assignment);
                            } catch (Exception e) {
                                // the engine failed before the attempt was handed to a worker: report it, free its claim
                                guard(AttemptRef.of(assignment), () -> {
                                    throw e;
                                });
                            }
                            return null;
                        }));
                    }
                }
                for (Future<?> f : batch) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        LOG.error("assignment could not be handled", e.getCause());
                    }
                }
                for (Assignment kill : killed) {
                    kill(kill.getAttemptId(), Kill.asked(kill.getReason() == null ? "killed by the framework" : kill.getReason()));
                }
                link.commit(next);
            }
        } catch (Exception e) {
            LOG.error("assignment loop stopped", e);
        } finally {
            link.closeReader();
        }
    }

    /** An attempt this node has just claimed (a redelivered one is skipped before). */
    private void run(Assignment assignment) throws Exception {
        String attemptId = assignment.getAttemptId();
        Optional<ContainerRuntime.ContainerInfo> existing = docker.find(attemptId);
        if (existing.isPresent() && !existing.get().created()) {
            running.release(attemptId); // already ran (or runs) under an earlier process: reconcile handled it
            return;
        }
        String containerId = existing.map(ContainerRuntime.ContainerInfo::id).orElse(null);
        if (containerId == null) {
            containerId = runner.prepare(assignment);
        }
        if (containerId == null) {
            running.release(attemptId);
            return;
        }
        String id = containerId;
        TaskDefinition task = assignment.getTask();
        AttemptRef ref = AttemptRef.of(assignment);
        workers.submit(() -> guard(ref, () -> runner.startAndWait(ref, id, task.getTimeoutSeconds(), Staging.Outputs.of(task))));
    }

    private void kill(String attemptId, Kill kill) {
        if (!running.contains(attemptId)) {
            return;
        }
        kills.put(attemptId, kill);
        String reason = kill.reason();
        try {
            String refused = docker.find(attemptId).map(c -> docker.kill(c.id())).orElse(null);
            LOG.infof("killing attempt %s: %s%s", attemptId, reason, refused == null ? "" : " (the engine refused: " + refused + ")");
        } catch (RuntimeException engineDown) {
            // the attempt's wait ends it after the kill grace all the same
            LOG.warnf("killing attempt %s: the engine does not answer (%s)", attemptId, AttemptRunner.message(engineDown));
        }
    }

    /** What the node does when it has left (reclaimed or drained): the service ends. */
    public void onLeave(Runnable action) {
        onLeave = action;
    }

    private void noticeReclaim(long leaveAt, String reason) {
        if (!leaving.noticed()) {
            LOG.warnf("spot capacity reclaimed (%s): taking no new work, leaving at %s", reason, Instant.ofEpochMilli(leaveAt));
        }
        leaving.notice(leaveAt, reason);
        heartbeatQuietly(); // the framework stops placing here now, not at the next beat
    }

    private void drain(String reason) {
        LOG.infof("draining (%s): taking no new work, leaving when what runs has ended", reason);
        leaving.drain(reason);
        heartbeatQuietly();
    }

    /** A spot node of a provider that reclaims at a rate (flash.node.spot-reclaims-per-hour) notices its own reclaim. */
    private void scheduleOwnReclaim() {
        NodeSettings.Pricing pricing = settings.pricing();
        if (!pricing.spot() || pricing.reclaimsPerHour() <= 0) return;
        double hours = -Math.log(1 - ThreadLocalRandom.current().nextDouble()) / pricing.reclaimsPerHour();
        timers.schedule(() -> noticeReclaim(System.currentTimeMillis() + pricing.notice().toMillis(),
                "at the provider's rate of " + pricing.reclaimsPerHour() + " an hour"), (long) (hours * 3_600_000), TimeUnit.MILLISECONDS);
    }

    private void followReclaim() {
        long now = System.currentTimeMillis();
        if (leaving.stopNow(now)) {
            for (String attemptId : running.ids()) kill(attemptId, Kill.reclaimed(leaving.lossReason()));
        }
        if (!gone && leaving.leaveNow(now, running.size())) {
            gone = true;
            LOG.warnf("node %s leaves (%d attempts unreported)", settings.nodeId(), running.size());
            onLeave.run();
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private void guard(AttemptRef ref, Step step) {
        String attemptId = ref.attemptId();
        stuckAttempts.begin(attemptId, Thread.currentThread());
        try {
            step.run();
        } catch (Exception e) {
            LOG.errorf(e, "attempt %s broke; reporting it as an infrastructure failure", attemptId);
            try {
                runner.reportBroken(ref, e);
            } catch (Exception again) {
                LOG.errorf(again, "attempt %s: could not report; it will be reconciled on the next start", attemptId);
            }
        } finally {
            stuckAttempts.end(attemptId);
            running.release(attemptId);
        }
    }

    private void watchForStuckAttemptsQuietly() {
        try {
            stuckAttempts.look(docker.containersOf(settings.nodeId()), System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.warnf("could not look for stuck attempts: %s", AttemptRunner.message(e));
        }
    }

    private void heartbeatQuietly() {
        try {
            heartbeat();
        } catch (Exception e) {
            LOG.warnf("heartbeat failed: %s", AttemptRunner.message(e));
        }
    }

    private void heartbeat() {
        if (gone) return;
        String unavailable = leaving.unavailable().orElse(stuck.unhealthyReason());
        link.heartbeat(running.heartbeat(settings, images, link.partition(), startedAt, unavailable), error -> {
            if (error == null) lastHeartbeatAcked = System.currentTimeMillis();
        });
    }

    private void refreshImages() {
        try {
            images = docker.localImageTags();
        } catch (Exception e) {
            LOG.warnf("could not list images: %s", AttemptRunner.message(e));
        }
    }

    /** The link's client metrics and the node's own gauges, for /q/metrics. */
    public void bindMetrics(MeterRegistry registry) {
        meters.add(registry);
        link.bindMetrics(registry);
        Gauge.builder("flash_executor_attempts_running", running, RunningAttempts::size)
                .description("attempts this node is preparing, running or reporting").register(registry);
        Gauge.builder("flash_executor_stuck_containers", stuck, StuckContainers::size)
                .description("containers of ended attempts the engine cannot stop or remove; while above 0 the node takes no work")
                .register(registry);
    }

    /**
     * Ready while its assignment loop runs and the broker acknowledged a heartbeat lately: a node
     * cut off from Kafka gets no work and its framework will soon call it lost.
     */
    public boolean healthy() {
        long silence = System.currentTimeMillis() - lastHeartbeatAcked;
        return pollThread != null && pollThread.isAlive() && silence < Math.max(10_000, 3 * settings.heartbeatInterval().toMillis());
    }

    public int runningAttempts() {
        return running.size();
    }

    /** The object store client, made on first use: a node whose jobs never name one never builds it. */
    private synchronized ObjectStore objectStore() {
        if (objectStore == null) objectStore = new ObjectStore(settings.objectStore());
        return objectStore;
    }

    private synchronized InputCache inputCache() {
        if (inputCache == null) {
            inputCache = new InputCache(objectStore(), settings.workRoot().resolve("cache").resolve(settings.nodeId()),
                    settings.cacheMaxBytes());
        }
        return inputCache;
    }

    /** Stops taking work; running containers keep running and are re-attached by the next start. */
    @Override
    public void close() {
        stopping = true;
        if (killWatch != null) {
            try {
                killWatch.close();
            } catch (Exception ignored) {
                // a daemon thread; it ends with the process
            }
        }
        timers.shutdownNow();
        samplers.shutdownNow();
        link.wakeup();
        try {
            if (pollThread != null) pollThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        preparers.shutdownNow();
        link.close();
        synchronized (this) {
            if (objectStore != null) objectStore.close();
        }
    }
}
