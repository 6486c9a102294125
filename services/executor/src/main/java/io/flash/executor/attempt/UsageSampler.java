package io.flash.executor.attempt;

import io.flash.schema.UsageSample;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Samples a running container's cgroup on a timer, publishes each sample, and keeps the peak. */
public final class UsageSampler {

    /** A container being watched; {@link #stop()} returns what it used, if anything was read. */
    final class Watch {
        private final ScheduledFuture<?> future;
        private volatile CgroupUsage.Reading last;
        private volatile long peak;

        private Watch(String nodeId, String jobId, String taskId, String attemptId, String containerId) {
            this.future = timer.scheduleAtFixedRate(() -> cgroups.read(containerId).ifPresent(r -> {
                last = r;
                peak = Math.max(peak, r.peakMemoryBytes());
                publish.accept(UsageSample.newBuilder().setNodeId(nodeId).setJobId(jobId).setTaskId(taskId)
                        .setAttemptId(attemptId).setMemoryBytes(r.memoryBytes()).setPeakMemoryBytes(peak)
                        .setCpuSeconds(r.cpuSeconds()).setAt(System.currentTimeMillis()).build());
            }), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }

        CgroupUsage.Reading stop() {
            future.cancel(false);
            CgroupUsage.Reading r = last;
            return r == null ? null : new CgroupUsage.Reading(r.memoryBytes(), peak, r.cpuSeconds());
        }
    }

    private final CgroupUsage cgroups;
    private final ScheduledExecutorService timer;
    private final Duration interval;
    private final Consumer<UsageSample> publish;

    public UsageSampler(CgroupUsage cgroups, ScheduledExecutorService timer, Duration interval, Consumer<UsageSample> publish) {
        this.cgroups = cgroups;
        this.timer = timer;
        this.interval = interval;
        this.publish = publish;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    Watch watch(String nodeId, String jobId, String taskId, String attemptId, String containerId) {
        return new Watch(nodeId, jobId, taskId, attemptId, containerId);
    }
}
