package io.flash.planner.dag;

import io.flash.common.ids.JobIds;
import io.flash.schema.*;

import java.util.*;

/**
 * The DAG state machine of one job. Pure: it takes the job's state and one input and returns the
 * new state and what to publish; the topology stores and forwards. Attempts, not tasks, run: an
 * event naming any attempt but the task's current one changes nothing.
 */
public final class JobStateMachine {

    private static final EnumSet<TaskState> TERMINAL =
            EnumSet.of(TaskState.SUCCEEDED, TaskState.FAILED, TaskState.CANCELLED, TaskState.SKIPPED);
    private static final EnumSet<TaskState> ACTIVE =
            EnumSet.of(TaskState.READY, TaskState.DISPATCHED, TaskState.PLACED, TaskState.RUNNING);

    private final RetryPolicy retryPolicy;

    public JobStateMachine(RetryPolicy retryPolicy) {
        this.retryPolicy = retryPolicy;
    }

    /** A newly accepted job: every task PENDING, those without dependencies made READY. */
    public Transition start(JobAccepted job, long now) {
        List<TaskSummary> tasks = new ArrayList<>();
        for (TaskDefinition def : job.getTasks()) {
            tasks.add(TaskSummary.newBuilder()
                    .setName(def.getName())
                    .setTaskId(JobIds.taskId(job.getJobId(), def.getName()))
                    .setState(TaskState.PENDING)
                    .build());
        }
        PlannedJob planned = PlannedJob.newBuilder().setJob(job).setState(JobState.RUNNING).setTasks(tasks).build();
        List<TaskReady> ready = releaseReadyTasks(planned, now);
        return new Transition(planned, ready, status(planned, "accepted: " + ready.size() + " of " + tasks.size() + " tasks ready", now), null);
    }

    public Transition apply(PlannedJob job, TaskEvent event, long now) {
        if (job.getResultPublished()) {
            return Transition.none();
        }
        int index = indexOf(job, event.getTaskId());
        if (index < 0) {
            return Transition.none();
        }
        TaskSummary task = job.getTasks().get(index);
        if (!event.getAttemptId().equals(task.getAttemptId()) || TERMINAL.contains(task.getState())) {
            return Transition.none(); // a late or duplicate event of an old attempt
        }
        String message = null;
        List<TaskReady> ready = new ArrayList<>();
        switch (event.getType()) {
            case HELD -> {
                task.setReason(event.getReason());
                message = "task " + task.getName() + " waits: " + event.getReason();
            }
            case DISPATCHED, QUEUED -> {
                task.setState(TaskState.DISPATCHED);
                task.setFrameworkId(event.getFrameworkId());
                task.setReason(null);
            }
            case PLACED -> {
                task.setState(TaskState.PLACED);
                task.setNodeId(event.getNodeId());
            }
            case STARTED -> {
                task.setState(TaskState.RUNNING);
                task.setNodeId(event.getNodeId() != null ? event.getNodeId() : task.getNodeId());
                task.setStartedAt(event.getAt());
            }
            case SUCCEEDED -> {
                finish(task, event, TaskState.SUCCEEDED);
                ready.addAll(releaseReadyTasks(job, now));
            }
            case FAILED, LOST, CANCELLED -> message = fail(job, index, event, ready, now);
        }
        JobState state = jobState(job);
        job.setState(state);
        JobResult result = null;
        if (state != JobState.RUNNING) {
            job.setResultPublished(true);
            result = result(job, now);
            message = result.getReason() != null ? result.getReason() : "all " + job.getTasks().size() + " tasks succeeded";
        }
        return new Transition(job, ready, status(job, message, now), result);
    }

    private String fail(PlannedJob job, int index, TaskEvent event, List<TaskReady> ready, long now) {
        TaskSummary task = job.getTasks().get(index);
        TaskDefinition def = job.getJob().getTasks().get(index);
        FailureClass cause = event.getFailureClass() != null ? event.getFailureClass()
                : event.getType() == TaskEventType.LOST ? FailureClass.NODE_LOST
                : event.getType() == TaskEventType.CANCELLED ? FailureClass.CANCELLED : FailureClass.USER;
        if (RetryPolicy.isInfrastructure(cause)) {
            task.setInfraFailures(task.getInfraFailures() + 1);
        } else if (cause != FailureClass.CANCELLED && cause != FailureClass.UNSCHEDULABLE) {
            task.setUserFailures(task.getUserFailures() + 1);
        }
        String reason = describe(event, cause);
        if (retryPolicy.retry(cause, task.getUserFailures(), task.getInfraFailures(), def.getMaxAttempts())) {
            task.setReason("attempt " + task.getAttempts() + " " + reason + "; retrying");
            ready.add(newAttempt(job, index, now));
            return "task " + task.getName() + ": " + task.getReason();
        }
        finish(task, event, cause == FailureClass.CANCELLED ? TaskState.CANCELLED : TaskState.FAILED);
        task.setFailureClass(cause);
        task.setReason(reason + budgetNote(task, def, cause));
        skipUnreachable(job);
        return "task " + task.getName() + " " + task.getReason();
    }

    private static String describe(TaskEvent event, FailureClass cause) {
        String base = switch (cause) {
            case USER -> "failed with exit code " + event.getExitCode();
            case OOM_KILLED -> "was killed for using more memory than it asked for";
            case TIMEOUT -> "ran past its timeout";
            case NODE_LOST -> "was lost with its node " + event.getNodeId();
            case FRAMEWORK_LOST -> "was lost with its framework " + event.getFrameworkId();
            case CANCELLED -> "was cancelled";
            case UNSCHEDULABLE -> "cannot be scheduled";
            case INFRASTRUCTURE -> "failed in the infrastructure";
            default -> "failed";
        };
        return event.getReason() == null || event.getReason().isBlank() ? base : base + " (" + event.getReason() + ")";
    }

    private String budgetNote(TaskSummary task, TaskDefinition def, FailureClass cause) {
        if (RetryPolicy.isInfrastructure(cause)) {
            return "; infrastructure retries exhausted (" + task.getInfraFailures() + " failures)";
        }
        if (cause == FailureClass.CANCELLED || cause == FailureClass.UNSCHEDULABLE) {
            return "";
        }
        return "; " + task.getUserFailures() + " of " + def.getMaxAttempts() + " attempts used";
    }

    private static void finish(TaskSummary task, TaskEvent event, TaskState state) {
        task.setState(state);
        task.setExitCode(event.getExitCode());
        task.setFinishedAt(event.getAt());
        if (event.getNodeId() != null) task.setNodeId(event.getNodeId());
        if (event.getFrameworkId() != null) task.setFrameworkId(event.getFrameworkId());
        if (event.getStdoutTail() != null) task.setStdoutTail(event.getStdoutTail());
        if (event.getPeakMemoryBytes() != null) task.setPeakMemoryBytes(event.getPeakMemoryBytes());
        if (state == TaskState.SUCCEEDED) task.setReason(null);
    }

    /** PENDING tasks whose dependencies all succeeded become READY, unless the job stops on failure. */
    private List<TaskReady> releaseReadyTasks(PlannedJob job, long now) {
        boolean stopped = job.getJob().getFailureMode() == FailureMode.STOP
                && job.getTasks().stream().anyMatch(t -> t.getState() == TaskState.FAILED);
        List<TaskReady> ready = new ArrayList<>();
        if (stopped) {
            return ready;
        }
        Map<String, TaskSummary> byName = byName(job);
        for (int i = 0; i < job.getTasks().size(); i++) {
            TaskSummary task = job.getTasks().get(i);
            if (task.getState() != TaskState.PENDING) continue;
            boolean depsDone = job.getJob().getTasks().get(i).getDependsOn().stream()
                    .allMatch(dep -> byName.get(dep).getState() == TaskState.SUCCEEDED);
            if (depsDone) {
                ready.add(newAttempt(job, i, now));
            }
        }
        return ready;
    }

    private TaskReady newAttempt(PlannedJob job, int index, long now) {
        TaskSummary task = job.getTasks().get(index);
        TaskDefinition def = job.getJob().getTasks().get(index);
        int attempt = task.getAttempts() + 1;
        task.setAttempts(attempt);
        task.setAttemptId(JobIds.attemptId(task.getTaskId(), attempt));
        task.setState(TaskState.READY);
        task.setNodeId(null);
        task.setStartedAt(null);
        Map<String, TaskSummary> byName = byName(job);
        List<String> depFrameworks = def.getDependsOn().stream()
                .map(dep -> byName.get(dep).getFrameworkId()).filter(Objects::nonNull).distinct().toList();
        JobAccepted spec = job.getJob();
        return TaskReady.newBuilder()
                .setJobId(spec.getJobId())
                .setTaskId(task.getTaskId())
                .setAttemptId(task.getAttemptId())
                .setAttempt(attempt)
                .setOwner(spec.getOwner())
                .setQueue(spec.getQueue())
                .setPriority(spec.getPriority())
                .setTask(def)
                .setDependencyFrameworks(depFrameworks)
                .setReadyAt(now)
                .build();
    }

    /** After a failure: with STOP nothing new starts; with CONTINUE only what depends on a failure is skipped. */
    private static void skipUnreachable(PlannedJob job) {
        boolean stop = job.getJob().getFailureMode() == FailureMode.STOP;
        Map<String, TaskSummary> byName = byName(job);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = 0; i < job.getTasks().size(); i++) {
                TaskSummary task = job.getTasks().get(i);
                if (task.getState() != TaskState.PENDING) continue;
                Optional<String> blocker = job.getJob().getTasks().get(i).getDependsOn().stream()
                        .filter(dep -> EnumSet.of(TaskState.FAILED, TaskState.SKIPPED, TaskState.CANCELLED)
                                .contains(byName.get(dep).getState()))
                        .findFirst();
                if (stop || blocker.isPresent()) {
                    task.setState(TaskState.SKIPPED);
                    task.setReason(blocker.map(b -> "not run: it depends on " + b + ", which did not succeed")
                            .orElse("not run: the job stops scheduling after its first failure (failureMode: stop)"));
                    changed = true;
                }
            }
        }
    }

    private static JobState jobState(PlannedJob job) {
        boolean anyActive = false, anyFailed = false, anyCancelled = false;
        for (TaskSummary task : job.getTasks()) {
            if (!TERMINAL.contains(task.getState())) anyActive = true;
            if (task.getState() == TaskState.FAILED) anyFailed = true;
            if (task.getState() == TaskState.CANCELLED) anyCancelled = true;
        }
        if (anyActive) return JobState.RUNNING;
        if (anyFailed) return JobState.FAILED;
        if (anyCancelled) return JobState.CANCELLED;
        return JobState.SUCCEEDED;
    }

    private static JobResult result(PlannedJob job, long now) {
        Integer exitCode = 0;
        String reason = null;
        for (TaskSummary task : job.getTasks()) {
            if (task.getState() == TaskState.FAILED || task.getState() == TaskState.CANCELLED) {
                exitCode = task.getExitCode();
                reason = "task " + task.getName() + " " + task.getReason();
                break;
            }
        }
        JobAccepted spec = job.getJob();
        return JobResult.newBuilder()
                .setJobId(spec.getJobId())
                .setSubmissionId(spec.getSubmissionId())
                .setName(spec.getName())
                .setOwner(spec.getOwner())
                .setState(job.getState())
                .setExitCode(exitCode)
                .setReason(reason)
                .setTasks(job.getTasks().stream().map(t -> TaskSummary.newBuilder(t).build()).toList())
                .setAcceptedAt(spec.getAcceptedAt())
                .setFinishedAt(now)
                .build();
    }

    static JobStatus status(PlannedJob job, String message, long now) {
        int succeeded = 0, failed = 0, running = 0;
        for (TaskSummary task : job.getTasks()) {
            if (task.getState() == TaskState.SUCCEEDED) succeeded++;
            else if (task.getState() == TaskState.FAILED) failed++;
            else if (ACTIVE.contains(task.getState())) running++;
        }
        JobAccepted spec = job.getJob();
        return JobStatus.newBuilder()
                .setJobId(spec.getJobId())
                .setSubmissionId(spec.getSubmissionId())
                .setName(spec.getName())
                .setOwner(spec.getOwner())
                .setState(job.getState())
                .setTasksTotal(job.getTasks().size())
                .setTasksSucceeded(succeeded)
                .setTasksFailed(failed)
                .setTasksRunning(running)
                .setMessage(message)
                .setUpdatedAt(now)
                .build();
    }

    private static int indexOf(PlannedJob job, String taskId) {
        for (int i = 0; i < job.getTasks().size(); i++) {
            if (job.getTasks().get(i).getTaskId().equals(taskId)) return i;
        }
        return -1;
    }

    private static Map<String, TaskSummary> byName(PlannedJob job) {
        Map<String, TaskSummary> map = new HashMap<>();
        for (TaskSummary task : job.getTasks()) map.put(task.getName(), task);
        return map;
    }
}
