package io.flash.planner.core;

import io.flash.common.ids.JobIds;
import io.flash.schema.*;

import java.util.ArrayList;
import java.util.List;

/**
 * What the planner tells about a job: its status, the roll-up of a task's shards, the words for a
 * failure, and the result of a job that is done. Reads the plan; decides nothing.
 */
final class JobReports {

    private final PlanStore store;

    JobReports(PlanStore store) {
        this.store = store;
    }

    /** A job all of whose tasks are final: its state and message set, its result built. */
    JobResult conclude(JobProgress job, long now) {
        List<TaskSummary> summaries = new ArrayList<>();
        boolean anyCancelled = false;
        Integer exitCode = 0;
        String reason = null;
        List<String> ignored = new ArrayList<>();
        for (String name : job.getTaskNames()) {
            LogicalTask task = store.task(job.getJobId(), name);
            TaskSummary summary = summary(job, task);
            summaries.add(summary);
            if (task.getState() == TaskState.CANCELLED) anyCancelled = true;
            boolean failed = task.getState() == TaskState.FAILED;
            if (failed && continuesOnFailure(store, job, name)) {
                ignored.add(name);
            } else if (reason == null && failed) {
                exitCode = summary.getExitCode();
                reason = "task " + summary.getName() + " " + summary.getReason();
            }
        }
        job.setState(job.getFailed() ? JobState.FAILED : anyCancelled ? JobState.CANCELLED : JobState.SUCCEEDED);
        job.setFinishedAt(now);
        if (job.getState() == JobState.CANCELLED && reason == null) {
            exitCode = null;
            reason = job.getCancelReason() == null ? "cancelled" : "cancelled: " + job.getCancelReason();
        }
        job.setMessage(reason != null ? reason : ignored.isEmpty() ? "all " + job.getTaskNames().size() + " tasks succeeded"
                : "done; failures ignored (continueOnFailure): " + String.join(", ", ignored));
        return JobResult.newBuilder()
                .setJobId(job.getJobId()).setSubmissionId(job.getSubmissionId()).setName(job.getName()).setOwner(job.getOwner())
                .setState(job.getState()).setExitCode(exitCode).setReason(reason).setTasks(summaries)
                .setAcceptedAt(job.getAcceptedAt()).setFinishedAt(now)
                .setUserCost(job.getUserCost()).setPlatformCost(job.getPlatformCost()).build();
    }

    /** A task as the result shows it: the unit itself, or a roll-up of its shards. */
    TaskSummary summary(JobProgress job, LogicalTask task) {
        TaskSummary unit = task.getShards() == 1 ? store.unit(JobIds.taskId(job.getJobId(), task.getName())) : null;
        TaskSummary summary = unit != null ? TaskSummary.newBuilder(unit).build()
                : TaskSummary.newBuilder().setName(task.getName()).setTaskId(JobIds.taskId(job.getJobId(), task.getName()))
                .setState(TaskState.PENDING).build();
        summary.setName(task.getName());
        summary.setState(task.getState());
        summary.setShards(task.getShards());
        summary.setShardsSucceeded(task.getSucceeded());
        summary.setShardsFailed(task.getFailed());
        if (task.getFirstFailure() != null && unit == null) {
            summary.setExitCode(task.getFirstFailure().getExitCode());
            summary.setFailureClass(task.getFirstFailure().getFailureClass());
            summary.setReason("shard " + task.getFirstFailure().getName() + " " + task.getFirstFailure().getReason());
        } else if (task.getReason() != null && summary.getReason() == null) {
            summary.setReason(task.getReason());
        }
        return summary;
    }

    static JobStatus status(JobProgress job, long now) {
        return JobStatus.newBuilder()
                .setJobId(job.getJobId()).setSubmissionId(job.getSubmissionId()).setName(job.getName()).setOwner(job.getOwner())
                .setState(job.getState()).setTasksTotal((int) Math.min(Integer.MAX_VALUE, job.getUnitsTotal()))
                .setTasksSucceeded((int) job.getUnitsSucceeded()).setTasksFailed((int) job.getUnitsFailed())
                .setTasksRunning((int) job.getUnitsActive()).setMessage(job.getMessage()).setUpdatedAt(now)
                .setAcceptedAt(job.getAcceptedAt()).setLabels(job.getLabels())
                .setQueue(job.getQueue()).setPriority(job.getPriority()).setStartedAt(job.getStartedAt())
                .setFinishedAt(job.getFinishedAt())
                .setUserCost(job.getUserCost()).setPlatformCost(job.getPlatformCost())
                .build();
    }

    static boolean continuesOnFailure(PlanStore store, JobProgress job, String taskName) {
        return store.spec(job.getJobId(), taskName).getContinueOnFailure();
    }

    static String describe(TaskEvent event, FailureClass cause) {
        String base = switch (cause) {
            case USER -> "failed with exit code " + event.getExitCode();
            case OOM_KILLED -> "was killed for using more memory than it asked for";
            case TIMEOUT -> "ran past its timeout";
            case NODE_LOST -> "was lost with its node " + event.getNodeId();
            case FRAMEWORK_LOST -> "was lost with its framework " + event.getFrameworkId();
            case CANCELLED -> "was cancelled";
            case PREEMPTED -> "was preempted for a higher-priority task";
            case SPOT_RECLAIMED -> "was lost when its spot node " + event.getNodeId() + " was reclaimed";
            case UNSCHEDULABLE -> "cannot be scheduled";
            case INFRASTRUCTURE -> "failed in the infrastructure";
            default -> "failed";
        };
        return event.getReason() == null || event.getReason().isBlank() ? base : base + " (" + event.getReason() + ")";
    }
}
