package io.flash.planner.core;

import io.flash.common.ids.JobIds;
import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What the planner sends the dispatcher for a unit: its next attempt — the task's spec made
 * concrete for it (a shard's own environment, estimated resources, grown memory, spot and
 * frameworks no longer allowed, where results may be looked up) — or a request to cancel the one
 * it has. Sets the unit's attempt fields as it goes; stores nothing.
 */
final class Attempts {

    private final PlanStore store;
    private final RetryPolicy retry;
    private final CachePlanning cache;

    Attempts(PlanStore store, RetryPolicy retry, CachePlanning cache) {
        this.store = store;
        this.retry = retry;
        this.cache = cache;
    }

    /** The unit's next attempt; for a shard, the shard's environment is rebuilt from the task's spec. */
    TaskReady next(JobProgress job, TaskSummary unit, TaskDefinition spec, long now) {
        int attempt = unit.getAttempts() + 1;
        unit.setAttempts(attempt);
        unit.setAttemptId(JobIds.attemptId(unit.getTaskId(), attempt));
        unit.setState(TaskState.READY);
        unit.setNodeId(null);
        unit.setStartedAt(null);
        AttemptCharges.nextAttempt(unit);
        Integer shardIndex = null;
        TaskDefinition definition = TaskDefinition.newBuilder(spec).build();
        if (spec.getScatter() != null) {
            shardIndex = Integer.parseInt(unit.getTaskId().substring(unit.getTaskId().lastIndexOf(".s") + 2));
            definition = Shards.forShard(spec, shardIndex);
        }
        applyEstimate(unit, spec, definition);
        definition.setCacheScope(cache.lookupScope(job, spec));
        if (!retry.spotAllowedAfter(unit.getSpotLosses())) definition.setSpotAllowed(false);
        if (unit.getMemoryBytes() != null) {
            Capacity r = definition.getResources();
            definition.setResources(new Capacity(r.getCpu(), unit.getMemoryBytes(), r.getDiskBytes(), r.getGpus()));
        }
        List<String> excluded = new ArrayList<>();
        for (String fw : new LinkedHashSet<>(unit.getFailedFrameworks())) {
            if (Collections.frequency(unit.getFailedFrameworks(), fw) >= retry.frameworkFailureLimit()) excluded.add(fw);
        }
        return TaskReady.newBuilder()
                .setJobId(job.getJobId()).setTaskId(unit.getTaskId()).setAttemptId(unit.getAttemptId()).setAttempt(attempt)
                .setOwner(job.getOwner()).setQueue(job.getQueue()).setPriority(job.getPriority())
                .setTask(definition)
                .setExcludedFrameworks(excluded).setShardIndex(shardIndex).setReadyAt(now)
                .build();
    }

    /** Cpu and memory the user left out come from earlier runs of the same program, else the defaults. */
    private void applyEstimate(TaskSummary unit, TaskDefinition spec, TaskDefinition definition) {
        if (spec.getCpuRequested() && spec.getMemoryRequested()) {
            unit.setResourceSource("requested");
            return;
        }
        ResourceEstimate estimate = store.estimate(ResourceEstimator.signature(spec));
        Capacity r = definition.getResources();
        if (estimate == null) {
            unit.setResourceSource("default " + (spec.getCpuRequested() ? "" : "cpu " + r.getCpu() + " ")
                    + (spec.getMemoryRequested() ? "" : "memory " + (r.getMemoryBytes() >> 20) + "Mi ")
                    + "(no earlier run of this image and command to estimate from)");
            return;
        }
        double cpu = !spec.getCpuRequested() && estimate.getCpu() != null ? estimate.getCpu() : r.getCpu();
        long memory = spec.getMemoryRequested() ? r.getMemoryBytes() : estimate.getMemoryBytes();
        // An estimate is the platform's guess, never the user's request: it must not ask for more
        // than any node has, or the platform would fail (or hold) a task the user sized right.
        double largestCpu = store.largestNodeCpu();
        long largestMemory = store.largestNodeMemory();
        boolean capped = false;
        if (!spec.getCpuRequested() && largestCpu > 0 && cpu > largestCpu) {
            cpu = largestCpu;
            capped = true;
        }
        if (!spec.getMemoryRequested() && largestMemory > 0 && memory > largestMemory) {
            memory = largestMemory;
            capped = true;
        }
        if (!spec.getMemoryRequested() && unit.getMemoryBytes() == null) {
            unit.setMemoryBytes(memory); // kept for the unit's later attempts, and grown from after an OOM kill
        }
        definition.setResources(new Capacity(cpu, memory, r.getDiskBytes(), r.getGpus()));
        unit.setResourceSource("estimated from " + estimate.getSamples() + " earlier runs (90th percentile + 20%): "
                + (spec.getCpuRequested() ? "" : "cpu " + cpu + " ") + (spec.getMemoryRequested() ? "" : "memory " + (memory >> 20) + "Mi")
                + (capped ? " (capped at the largest node's)" : ""));
    }

    /** Asks the framework that has the unit's attempt (or, named none, every one) to stop it. */
    static TaskReady cancelRequest(JobProgress job, TaskSummary unit, long now) {
        TaskDefinition placeholder = TaskDefinition.newBuilder().setName(unit.getName()).setImage("").setCommand(List.of())
                .setResources(Resources.zero()).build();
        return TaskReady.newBuilder()
                .setJobId(job.getJobId()).setTaskId(unit.getTaskId()).setAttemptId(unit.getAttemptId()).setAttempt(unit.getAttempts())
                .setOwner(job.getOwner()).setQueue(job.getQueue()).setPriority(job.getPriority()).setTask(placeholder)
                .setCancel(true).setCancelFramework(unit.getFrameworkId()).setCancelShard(unit.getShard()).setReadyAt(now)
                .build();
    }
}
