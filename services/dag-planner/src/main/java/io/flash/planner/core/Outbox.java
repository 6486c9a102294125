package io.flash.planner.core;

import io.flash.schema.*;

/** What the planner publishes; the topology forwards each kind to its topic. */
public interface Outbox {

    /** An attempt to run (or, with {@code cancel}, to stop). */
    void ready(TaskReady ready);

    /** A retry to publish once its backoff has passed. */
    void later(DelayedAttempt attempt);

    void unitStatus(TaskSummary unit);

    /** What a successful attempt used, for the estimates of tasks that do not say. */
    void observed(ResourceObservation observation);

    void jobStatus(JobStatus status);

    void result(JobResult result);
}
