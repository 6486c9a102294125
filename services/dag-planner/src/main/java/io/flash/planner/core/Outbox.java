package io.flash.planner.core;

import io.flash.schema.*;

/** What the planner publishes; the topology forwards each kind to its topic. */
public interface Outbox {

    /** An attempt to run (or, with {@code cancel}, to stop). */
    void ready(TaskReady ready);

    /** A retry to publish once its backoff has passed. */
    void later(DelayedAttempt attempt);

    /** A unit's status, to publish now (supersedes any {@link #unitProgress} of it not yet published). */
    void unitStatus(TaskSummary unit);

    /**
     * A unit's step on its way to an end (ready, dispatched, placed, running): published only if the
     * unit is still there a tick later, so a reader sees the steps that last and the records that
     * would only be overwritten at once are not written. Reasons (held, a retry) and ends are
     * {@link #unitStatus}.
     */
    void unitProgress(TaskSummary unit);

    /** What a successful attempt used, for the estimates of tasks that do not say. */
    void observed(ResourceObservation observation);

    /** A job's status, to publish now (supersedes any {@link #jobProgress} of it not yet published). */
    void jobStatus(JobStatus status);

    /**
     * A job's step on its way to an end (its first start, a unit's success that leaves it running):
     * the latest is published a tick after the first of them not yet published, unless a
     * {@link #jobStatus} supersedes it. Unlike a unit's steps, a later one does not put it off, so
     * a job whose shards end all the time still shows its counts once a tick.
     */
    void jobProgress(JobStatus status);

    void result(JobResult result);

    /** A unit's result for the task-result cache's index (docs/caching.md). */
    void cacheEntry(CacheEntry entry);

    /** A node found this entry (scope|cacheKey) unusable, an output gone or changed: it leaves the index. */
    void cacheDropped(String id);
}
