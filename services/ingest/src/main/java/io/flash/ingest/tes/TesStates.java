package io.flash.ingest.tes;

import io.flash.schema.FailureClass;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/**
 * The TES state of a Flash job (the table in docs/tes.md). An executor's own failure (its exit
 * code, memory, time limit) after Flash's retries is EXECUTOR_ERROR; everything else that ends a
 * job unsuccessfully is the system's. PREEMPTED is never reported: Flash retries a preempted
 * attempt without spending budget, so no task ends preempted.
 */
public final class TesStates {

    private static final Set<FailureClass> THE_EXECUTORS = EnumSet.of(FailureClass.USER, FailureClass.OOM_KILLED, FailureClass.TIMEOUT);

    private TesStates() {
    }

    public static String of(JobStatus job, Collection<TaskSummary> units) {
        return switch (job.getState()) {
            case SUCCEEDED -> "COMPLETE";
            case CANCELLED -> "CANCELED";
            case FAILED -> units.stream().anyMatch(u -> u.getState() == TaskState.FAILED && THE_EXECUTORS.contains(u.getFailureClass()))
                    ? "EXECUTOR_ERROR" : "SYSTEM_ERROR";
            case ACCEPTED, RUNNING -> {
                if (job.getMessage() != null && job.getMessage().startsWith("cancelling")) yield "CANCELING";
                if (units.stream().anyMatch(u -> u.getState() == TaskState.RUNNING)) yield "RUNNING";
                if (units.stream().anyMatch(u -> u.getState() == TaskState.PLACED)) yield "INITIALIZING";
                yield "QUEUED";
            }
        };
    }
}
