package io.flash.planner.core;

import io.flash.common.ids.JobIds;
import io.flash.planner.core.cache.Entries;
import io.flash.planner.core.cache.ResultCache;
import io.flash.planner.core.cache.TaskKeys;
import io.flash.schema.JobProgress;
import io.flash.schema.LogicalTask;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskSummary;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The planner's part of the task-result cache (docs/caching.md), over the planner's own store and
 * outbox: the keys a task is handed when it is released, the scope its attempts look up, what a
 * keyed success leaves in the index, and a done task's key for what follows.
 */
final class CachePlanning {

    private final PlanStore store;
    private final Outbox out;
    private final ResultCache.Sharing sharing;

    CachePlanning(PlanStore store, Outbox out, ResultCache.Sharing sharing) {
        this.store = store;
        this.out = out;
        this.sharing = sharing;
    }

    /** Hands a task about to run the keys of what it reads and runs after, kept with its spec so that retries carry them. */
    void handDownKeys(JobProgress job, TaskDefinition spec) {
        Function<String, String> doneKeys = name -> store.task(job.getJobId(), name).getCacheKey();
        Map<String, String> upstreamKeys = TaskKeys.upstream(spec, job.getTaskNames(), name -> store.spec(job.getJobId(), name), doneKeys);
        Map<String, String> afterKeys = TaskKeys.after(spec, doneKeys);
        if (upstreamKeys.isEmpty() && afterKeys.isEmpty()) return;
        spec.setUpstreamKeys(upstreamKeys);
        spec.setAfterKeys(afterKeys);
        store.putSpec(job.getJobId(), spec);
    }

    /** Where an attempt of the task looks itself up: null when the cache may not serve it. */
    String lookupScope(JobProgress job, TaskDefinition spec) {
        return TaskKeys.servable(spec) && TaskKeys.chained(spec) ? scope(job) : null;
    }

    /**
     * A unit that succeeded with a key (not itself a hit) is indexed when the cache may serve its
     * task and a hit would restore all it wrote; one that also wrote files it does not declare says
     * so instead.
     */
    void succeeded(JobProgress job, TaskSummary unit, TaskEvent succeeded, long now) {
        if (unit.getCacheKey() == null || unit.getCachedFrom() != null) return;
        TaskDefinition spec = store.spec(job.getJobId(), JobIds.taskName(job.getJobId(), unit.getTaskId()));
        if (lookupScope(job, spec) == null) return;
        if (!succeeded.getUndeclaredWrites().isEmpty()) {
            unit.setReason(Entries.notIndexed(succeeded.getUndeclaredWrites()));
            store.putUnit(unit);
            out.unitStatus(unit);
            return;
        }
        out.cacheEntry(Entries.of(scope(job), job, unit, succeeded, spec.getStore(), now));
    }

    /** A task whose units all succeeded is keyed for what follows it, when its own key covers what it ran after. */
    void taskDone(JobProgress job, LogicalTask task) {
        if (task.getDependents().isEmpty()) return;
        TaskDefinition spec = store.spec(job.getJobId(), task.getName());
        if (TaskKeys.chained(spec)) task.setCacheKey(TaskKeys.ofTask(unitKeys(job, task, spec.getScatter() != null)));
    }

    /** The keys its units succeeded with, in shard order, up to the first unit without one (its node keys nothing). */
    private List<String> unitKeys(JobProgress job, LogicalTask task, boolean scattered) {
        List<String> keys = new ArrayList<>();
        for (int shard = 0; shard < task.getShards(); shard++) {
            String unitId = scattered ? JobIds.shardId(job.getJobId(), task.getName(), shard) : JobIds.taskId(job.getJobId(), task.getName());
            String key = store.unit(unitId).getCacheKey();
            keys.add(key);
            if (key == null) break;
        }
        return keys;
    }

    private String scope(JobProgress job) {
        return ResultCache.scope(sharing, job.getOwner(), job.getQueue());
    }
}
