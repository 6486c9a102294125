package io.flash.planner.dag;

import io.flash.schema.JobResult;
import io.flash.schema.JobStatus;
import io.flash.schema.PlannedJob;
import io.flash.schema.TaskReady;

import java.util.List;

/**
 * What one input did to a job: its new state (null = unchanged), attempts to make ready, the status
 * to publish (null = none) and the final result (null until the job ends).
 */
public record Transition(PlannedJob job, List<TaskReady> ready, JobStatus status, JobResult result) {

    public static Transition none() {
        return new Transition(null, List.of(), null, null);
    }

    public boolean changed() {
        return job != null;
    }
}
