package io.flash.planner.core.cache;

import io.flash.common.cache.CacheKeys;
import io.flash.schema.CacheEntry;
import io.flash.schema.JobProgress;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskSummary;

import java.util.List;

/** What a unit that succeeded with a key leaves in the cache's index (docs/caching.md). */
public final class Entries {

    private Entries() {
    }

    /**
     * @param scope whose results it is among ({@link ResultCache#scope})
     * @param unit  the unit as it ended (its start and end set)
     * @param store the job's object store, or null
     */
    public static CacheEntry of(String scope, JobProgress job, TaskSummary unit, TaskEvent succeeded, String store, long now) {
        Double runSeconds = unit.getStartedAt() == null || unit.getFinishedAt() == null ? null
                : (unit.getFinishedAt() - unit.getStartedAt()) / 1000.0;
        return CacheEntry.newBuilder()
                .setScope(scope)
                .setCacheKey(succeeded.getCacheKey()).setJobId(job.getJobId()).setTaskId(unit.getTaskId())
                .setAttemptId(succeeded.getAttemptId()).setOutputs(succeeded.getOutputFiles()).setStore(store)
                .setRunSeconds(runSeconds).setCreatedAt(now).setLastUsedAt(now)
                .build();
    }

    /** Why a success was not indexed: it wrote files a hit would not restore (the first few named). */
    public static String notIndexed(List<String> undeclared) {
        if (undeclared.contains(CacheKeys.NOT_LOOKED_THROUGH)) {
            return "not cached: its job workspace has more files than are looked through after a success, so what it wrote could not"
                    + " be checked (docs/caching.md)";
        }
        return "not cached: it wrote " + String.join(", ", undeclared) + (undeclared.size() >= 10 ? ", …" : "")
                + " in the workspace without declaring them; a result from the cache would lack them (declare them in outputs,"
                + " or say cache: false)";
    }

    /** Its record key in the index: a success under one scope replaces the entry of the same key. */
    public static String id(CacheEntry entry) {
        return ResultCache.id(entry.getScope(), entry.getCacheKey());
    }
}
