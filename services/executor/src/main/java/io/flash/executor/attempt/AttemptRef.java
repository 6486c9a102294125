package io.flash.executor.attempt;

import io.flash.executor.engine.ContainerRuntime;
import io.flash.schema.Assignment;
import io.flash.schema.AttemptEvent;
import io.flash.schema.AttemptState;

/** Which attempt, of which task of which job: what every report of it names. */
public record AttemptRef(String jobId, String taskId, String attemptId) {

    public static AttemptRef of(Assignment assignment) {
        return new AttemptRef(assignment.getJobId(), assignment.getTaskId(), assignment.getAttemptId());
    }

    /** An event of this attempt on {@code nodeId}, stamped now. */
    public AttemptEvent.Builder event(String nodeId, AttemptState state) {
        return AttemptEvent.newBuilder().setNodeId(nodeId).setJobId(jobId).setTaskId(taskId)
                .setAttemptId(attemptId).setState(state).setAt(System.currentTimeMillis());
    }

    /** The attempt a container found on the engine belongs to (by its labels). */
    public static AttemptRef of(ContainerRuntime.ContainerInfo container) {
        return new AttemptRef(container.jobId(), container.taskId(), container.attemptId());
    }
}
