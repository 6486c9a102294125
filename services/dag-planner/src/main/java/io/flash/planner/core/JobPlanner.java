package io.flash.planner.core;

import io.flash.common.events.HoldReasons;
import io.flash.common.ids.JobIds;
import io.flash.planner.core.cache.ResultCache;
import io.flash.schema.*;

import java.util.*;

/**
 * The DAG state machine. Plain Java over a {@link PlanStore} and an {@link Outbox}: the topology
 * only wires it to topics. Attempts, not tasks, run: an event naming any attempt but a unit's
 * current one changes nothing.
 */
public final class JobPlanner {

    static final EnumSet<TaskState> FINAL =
            EnumSet.of(TaskState.SUCCEEDED, TaskState.FAILED, TaskState.CANCELLED, TaskState.SKIPPED);
    private static final int MAX_LOCALITY_FRAMEWORKS = 4;

    private final PlanStore store;
    private final Outbox out;
    private final RetryPolicy retry;
    private final ShardSizing sizing;
    private final CachePlanning cache;
    private final JobReports reports;
    private final Attempts attempts;

    public JobPlanner(PlanStore store, Outbox out, RetryPolicy retry) {
        this(store, out, retry, ShardSizing.defaults());
    }

    public JobPlanner(PlanStore store, Outbox out, RetryPolicy retry, ShardSizing sizing) {
        this(store, out, retry, sizing, ResultCache.Sharing.OWNER);
    }

    /** @param cacheSharing whose results a job's units may be served (docs/caching.md): the owner's unless an admin widened it */
    public JobPlanner(PlanStore store, Outbox out, RetryPolicy retry, ShardSizing sizing, ResultCache.Sharing cacheSharing) {
        this.store = store;
        this.out = out;
        this.retry = retry;
        this.sizing = sizing;
        this.cache = new CachePlanning(store, out, cacheSharing);
        this.reports = new JobReports(store);
        this.attempts = new Attempts(store, retry, cache);
    }

    /** A newly accepted job; a job id seen before is ignored (the same submission again). */
    public boolean accept(JobAccepted spec, long now) {
        JobProgress existing = store.job(spec.getJobId());
        if (existing != null) {
            // Tell the client which job its repeated submission id names, without running it again.
            JobStatus status = JobReports.status(existing, now);
            status.setMessage("submission " + spec.getSubmissionId() + " was seen before: it is job " + existing.getJobId()
                    + " (" + existing.getState() + "), not run again");
            out.jobStatus(status);
            return false;
        }
        List<String> names = spec.getTasks().stream().map(TaskDefinition::getName).toList();
        JobProgress job = JobProgress.newBuilder()
                .setJobId(spec.getJobId()).setSubmissionId(spec.getSubmissionId()).setName(spec.getName())
                .setOwner(spec.getOwner()).setQueue(spec.getQueue()).setPriority(spec.getPriority())
                .setFailureMode(spec.getFailureMode()).setAcceptedAt(spec.getAcceptedAt()).setLabels(spec.getLabels())
                .setState(JobState.RUNNING).setTaskNames(names).build();
        Map<String, List<String>> dependents = new HashMap<>();
        for (TaskDefinition def : spec.getTasks()) {
            for (String dep : def.getDependsOn()) dependents.computeIfAbsent(dep, k -> new ArrayList<>()).add(def.getName());
        }
        spec.setTasks(spec.getTasks().stream()
                .map(def -> sizing.sized(def, store.estimate(ResourceEstimator.signature(def)))).toList());
        for (TaskDefinition def : spec.getTasks()) {
            store.putSpec(job.getJobId(), def);
            store.putTask(job.getJobId(), LogicalTask.newBuilder()
                    .setName(def.getName()).setState(TaskState.PENDING)
                    .setDependents(dependents.getOrDefault(def.getName(), List.of()))
                    .setWaitingOn(def.getDependsOn().size())
                    .setShards(def.getScatter() == null ? 1 : def.getScatter().getShards())
                    .setReason(ShardSizing.explain(def, store.estimate(ResourceEstimator.signature(def))))
                    .build());
        }
        job.setUnitsTotal(spec.getTasks().stream().mapToLong(t -> t.getScatter() == null ? 1 : t.getScatter().getShards()).sum());
        for (String name : names) {
            LogicalTask task = store.task(job.getJobId(), name);
            if (task.getWaitingOn() == 0) release(job, task, now);
        }
        job.setMessage("accepted");
        finishIfDone(job, now, false);
        return true;
    }

    public void onEvent(TaskEvent event, long now) {
        JobProgress job = store.job(event.getJobId());
        if (job == null || job.getState() != JobState.RUNNING) return;
        TaskSummary unit = store.unit(event.getTaskId());
        if (unit == null || !event.getAttemptId().equals(unit.getAttemptId()) || FINAL.contains(unit.getState())) {
            return; // a late or duplicate event of an old attempt
        }
        if (event.getFailureClass() == FailureClass.FRAMEWORK_LOST && event.getNodeId() == null
                && (unit.getState() == TaskState.PLACED || unit.getState() == TaskState.RUNNING)) {
            return; // the dispatcher moved it before it read the placement: its shard stops it and reports the end
        }
        // The job's record and status are written only when the event changes the job: a unit
        // dispatched, placed or started (after the first) changes nothing a reader of the job sees.
        boolean jobChanged = false;
        boolean stored = true;
        switch (event.getType()) {
            case HELD -> {
                // Published at once, not stored: a restart need not know why a unit waited (the status
                // topic keeps it for readers), and the dispatcher routes a cancel by its in-flight record.
                stored = false;
                if (event.getFrameworkId() != null) { // waits in a framework shard's queue: it was dispatched there
                    unit.setState(TaskState.DISPATCHED);
                    unit.setFrameworkId(event.getFrameworkId());
                    if (event.getShard() != null) unit.setShard(event.getShard());
                }
                unit.setReason(event.getReason());
                // One message for all the waiting shards of a task, news only when its words change.
                String message = "task " + JobIds.taskName(job.getJobId(), unit.getTaskId()) + " waits: " + event.getReason();
                jobChanged = !HoldReasons.sameInWords(job.getMessage(), message);
                if (jobChanged) job.setMessage(message);
            }
            case DISPATCHED, QUEUED -> {
                // Only from a dispatcher of an older build (the placement now tells the dispatch).
                // A passing step a restart need not know: the placement names the framework and shard
                // again, and until then the dispatcher routes a cancel by its own in-flight record.
                // Written only when it clears a stored reason (a retry's).
                stored = unit.getReason() != null;
                unit.setState(TaskState.DISPATCHED);
                unit.setFrameworkId(event.getFrameworkId());
                unit.setShard(event.getShard());
                unit.setReason(null);
            }
            case PLACED -> {
                unit.setState(TaskState.PLACED);
                unit.setReason(null); // a retry's, which no DISPATCHED event clears any more
                unit.setNodeId(event.getNodeId());
                if (event.getFrameworkId() != null) unit.setFrameworkId(event.getFrameworkId());
                if (event.getShard() != null) unit.setShard(event.getShard());
                AttemptCharges.placed(unit, event);
            }
            case STARTED -> {
                if (event.getCacheRejected() != null) out.cacheDropped(event.getCacheRejected());
                if (unit.getState() == TaskState.RUNNING) return; // the same start told again: its first time stands
                unit.setState(TaskState.RUNNING);
                if (event.getNodeId() != null) unit.setNodeId(event.getNodeId());
                unit.setStartedAt(event.getAt());
                AttemptCharges.started(unit, event);
                if (job.getStartedAt() == null) {
                    job.setStartedAt(event.getAt());
                    jobChanged = true;
                }
            }
            case SUCCEEDED -> {
                AttemptCharges.ended(job, unit, event, null, false);
                settle(job, unit, event, TaskState.SUCCEEDED, null);
                return;
            }
            case FAILED, LOST, CANCELLED -> {
                failed(job, unit, event, now);
                return;
            }
        }
        if (stored) store.putUnit(unit);
        // Dispatched, placed and running are passing steps: a unit that ends within the tick is
        // published once, with its end (which carries when it started).
        if (event.getType() == TaskEventType.HELD) out.unitStatus(unit);
        else out.unitProgress(unit);
        if (!jobChanged) return;
        store.putJob(job);
        if (event.getType() == TaskEventType.STARTED) out.jobProgress(JobReports.status(job, now));
        else out.jobStatus(JobReports.status(job, now));
    }

    /** A cancel command: nothing new starts; running attempts are asked to stop. */
    public void cancel(String jobId, String reason, long now) {
        JobProgress job = store.job(jobId);
        if (job == null || job.getState() != JobState.RUNNING || job.getCancelRequested()) return;
        job.setCancelRequested(true);
        job.setCancelReason(reason);
        job.setMessage("cancelling" + (reason == null ? "" : ": " + reason));
        for (String name : job.getTaskNames()) {
            LogicalTask task = store.task(jobId, name);
            if (task.getState() == TaskState.PENDING) {
                task.setState(TaskState.CANCELLED);
                task.setReason("not run: the job was cancelled");
                store.putTask(jobId, task);
                job.setTasksDone(job.getTasksDone() + 1);
            }
        }
        store.forEachUnit(jobId, unit -> {
            if (!FINAL.contains(unit.getState())) {
                out.ready(Attempts.cancelRequest(job, unit, now));
            }
        });
        finishIfDone(job, now, false);
    }

    /** A retry whose backoff has passed. */
    public void due(DelayedAttempt delayed, long now) {
        TaskReady ready = delayed.getReady();
        JobProgress job = store.job(ready.getJobId());
        TaskSummary unit = store.unit(ready.getTaskId());
        if (job == null || unit == null || !ready.getAttemptId().equals(unit.getAttemptId()) || FINAL.contains(unit.getState())) {
            return;
        }
        if (job.getCancelRequested()) {
            settle(job, unit, TaskEvent.newBuilder().setJobId(job.getJobId()).setTaskId(unit.getTaskId())
                    .setAttemptId(unit.getAttemptId()).setType(TaskEventType.CANCELLED).setAt(now).build(),
                    TaskState.CANCELLED, "cancelled while waiting to retry");
            return;
        }
        ready.setReadyAt(now);
        out.ready(ready);
    }

    private void failed(JobProgress job, TaskSummary unit, TaskEvent event, long now) {
        FailureClass cause = event.getFailureClass() != null ? event.getFailureClass()
                : event.getType() == TaskEventType.LOST ? FailureClass.NODE_LOST
                : event.getType() == TaskEventType.CANCELLED ? FailureClass.CANCELLED : FailureClass.USER;
        String name = JobIds.taskName(job.getJobId(), unit.getTaskId());
        TaskDefinition spec = store.spec(job.getJobId(), name);
        long memory = unit.getMemoryBytes() != null ? unit.getMemoryBytes() : spec.getResources().getMemoryBytes();
        long largestNode = cause == FailureClass.OOM_KILLED ? store.largestNodeMemory() : 0;
        long missedEstimate = cause == FailureClass.OOM_KILLED ? retry.afterEstimateMiss(spec, memory, largestNode) : 0;
        boolean free = cause == FailureClass.CANCELLED || cause == FailureClass.UNSCHEDULABLE || cause == FailureClass.PREEMPTED
                || cause == FailureClass.SPOT_RECLAIMED || missedEstimate > 0;
        if (cause == FailureClass.SPOT_RECLAIMED) unit.setSpotLosses(unit.getSpotLosses() + 1);
        AttemptCharges.ended(job, unit, event, cause, missedEstimate > 0);
        if (RetryPolicy.isInfrastructure(cause)) unit.setInfraFailures(unit.getInfraFailures() + 1);
        else if (!free) unit.setUserFailures(unit.getUserFailures() + 1);
        if (event.getFrameworkId() != null && !free) {
            List<String> failedOn = new ArrayList<>(unit.getFailedFrameworks());
            failedOn.add(event.getFrameworkId());
            unit.setFailedFrameworks(failedOn);
        }
        RetryPolicy.Verdict verdict = job.getCancelRequested() ? new RetryPolicy.Verdict(false, "")
                : missedEstimate > 0 ? new RetryPolicy.Verdict(true, "it ran on the platform's memory estimate, which spends no retry budget")
                : retry.decide(cause, event.getExitCode(), unit.getUserFailures(), unit.getInfraFailures(), spec, memory, largestNode);
        String what = JobReports.describe(event, cause);
        if (!verdict.retry()) {
            unit.setFailureClass(cause);
            settle(job, unit, event, cause == FailureClass.CANCELLED ? TaskState.CANCELLED : TaskState.FAILED,
                    what + (verdict.reason().isEmpty() ? "" : "; " + verdict.reason()));
            return;
        }
        unit.setExitCode(event.getExitCode());
        unit.setReason("attempt " + unit.getAttempts() + " " + what + "; retrying (" + verdict.reason() + ")");
        if (cause == FailureClass.OOM_KILLED) {
            unit.setMemoryBytes(missedEstimate > 0 ? missedEstimate : retry.grownMemory(memory, largestNode));
            unit.setReason(unit.getReason() + " with " + (unit.getMemoryBytes() >> 20) + "Mi memory");
        }
        TaskReady next = attempts.next(job, unit, spec, now);
        next.setDependencyFrameworks(localityFrameworks(job, spec));
        store.putUnit(unit);
        out.unitStatus(unit);
        long delay = RetryPolicy.isInfrastructure(cause) || missedEstimate > 0 ? 0 : retry.backoffSeconds(spec.getBackoffSeconds(), unit.getUserFailures());
        if (delay > 0) out.later(new DelayedAttempt(now + delay * 1000, next));
        else out.ready(next);
        job.setMessage("task " + unit.getName() + ": " + unit.getReason());
        store.putJob(job);
        out.jobStatus(JobReports.status(job, now));
    }

    /** A unit reached a final state: count it, and settle its task and job when they are done. */
    private void settle(JobProgress job, TaskSummary unit, TaskEvent event, TaskState state, String reason) {
        long now = event.getAt();
        unit.setState(state);
        unit.setExitCode(event.getExitCode());
        unit.setFinishedAt(event.getAt());
        if (event.getNodeId() != null) unit.setNodeId(event.getNodeId());
        if (event.getFrameworkId() != null) unit.setFrameworkId(event.getFrameworkId());
        if (event.getStdoutTail() != null) unit.setStdoutTail(event.getStdoutTail());
        unit.setOutputs(event.getOutputs());
        unit.setCacheKey(state == TaskState.SUCCEEDED ? event.getCacheKey() : null);
        unit.setCachedFrom(state == TaskState.SUCCEEDED ? event.getCachedFrom() : null);
        if (event.getPeakMemoryBytes() != null) unit.setPeakMemoryBytes(event.getPeakMemoryBytes());
        if (event.getCpuSeconds() != null) unit.setCpuSeconds(event.getCpuSeconds());
        unit.setReason(reason);
        String name = JobIds.taskName(job.getJobId(), unit.getTaskId());
        LogicalTask task = store.task(job.getJobId(), name);
        // An ended shard is read again only for its cache key, when its task completes and keys
        // what follows it; otherwise it goes now (deleted below, after the cache had its say), its
        // tombstone taking the place of its last value in this commit rather than adding one when
        // the job concludes. (A task of one unit stays: the result shows the unit.)
        boolean dropped = task.getShards() > 1 && (state != TaskState.SUCCEEDED || task.getDependents().isEmpty());
        if (!dropped) store.putUnit(unit);
        out.unitStatus(unit);
        cache.succeeded(job, unit, event, now);

        job.setUnitsActive(job.getUnitsActive() - 1);
        // A failure the task may have (continueOnFailure) neither fails the job nor stops what depends on it;
        // the spec is read only when this unit or an earlier shard of the task failed.
        boolean continues = (state != TaskState.SUCCEEDED || task.getFailed() > 0) && JobReports.continuesOnFailure(store, job, name);
        boolean tolerated = state == TaskState.FAILED && continues;
        if (state == TaskState.SUCCEEDED && unit.getPeakMemoryBytes() != null) {
            out.observed(ResourceObservation.newBuilder()
                    .setSignature(ResourceEstimator.signature(store.spec(job.getJobId(), name)))
                    .setPeakMemoryBytes(unit.getPeakMemoryBytes()).setCpuSeconds(unit.getCpuSeconds())
                    .setDurationMillis(unit.getStartedAt() == null ? null : unit.getFinishedAt() - unit.getStartedAt())
                    .setItems(Shards.itemsOf(store.spec(job.getJobId(), name), unit.getTaskId()))
                    .setAt(now).build());
        }
        if (state == TaskState.SUCCEEDED) {
            job.setUnitsSucceeded(job.getUnitsSucceeded() + 1);
            task.setSucceeded(task.getSucceeded() + 1);
            if (unit.getFrameworkId() != null && !task.getFrameworks().contains(unit.getFrameworkId())
                    && task.getFrameworks().size() < MAX_LOCALITY_FRAMEWORKS) {
                List<String> fws = new ArrayList<>(task.getFrameworks());
                fws.add(unit.getFrameworkId());
                task.setFrameworks(fws);
            }
        } else {
            if (state == TaskState.FAILED) {
                job.setUnitsFailed(job.getUnitsFailed() + 1);
                task.setFailed(task.getFailed() + 1);
                if (!tolerated) job.setFailed(true);
            } else {
                task.setCancelled(task.getCancelled() + 1);
            }
            if (task.getFirstFailure() == null) task.setFirstFailure(TaskSummary.newBuilder(unit).build());
        }
        if (task.getSucceeded() + task.getFailed() + task.getCancelled() == task.getShards()) {
            completeTask(job, task, continues, now);
        } else {
            store.putTask(job.getJobId(), task);
        }
        if (state == TaskState.FAILED && !tolerated) {
            skipAfterFailure(job, task);
        }
        if (dropped) store.deleteUnit(unit.getTaskId());
        job.setMessage(state == TaskState.SUCCEEDED ? null : "task " + unit.getName() + " " + reason);
        // A success that does not end the job only moves its counts: news a reader may take a tick
        // late (a 1,000-shard scatter would otherwise publish its job a thousand times). A failure
        // or a cancel says why, so it goes at once.
        finishIfDone(job, now, state == TaskState.SUCCEEDED);
    }

    /** @param continuesOnFailure the task's continueOnFailure: a failed task releases its dependants all the same */
    private void completeTask(JobProgress job, LogicalTask task, boolean continuesOnFailure, long now) {
        TaskState state = task.getFailed() > 0 ? TaskState.FAILED
                : task.getCancelled() > 0 ? TaskState.CANCELLED : TaskState.SUCCEEDED;
        task.setState(state);
        if (task.getFirstFailure() != null) task.setReason(task.getFirstFailure().getReason());
        if (state == TaskState.SUCCEEDED) cache.taskDone(job, task);
        store.putTask(job.getJobId(), task);
        job.setTasksDone(job.getTasksDone() + 1);
        boolean released = state == TaskState.SUCCEEDED || state == TaskState.FAILED && continuesOnFailure;
        if (!released || job.getCancelRequested()) return;
        if (job.getFailed() && job.getFailureMode() == FailureMode.STOP) return;
        for (String dependentName : task.getDependents()) {
            LogicalTask dependent = store.task(job.getJobId(), dependentName);
            dependent.setWaitingOn(dependent.getWaitingOn() - 1);
            store.putTask(job.getJobId(), dependent);
            if (dependent.getWaitingOn() == 0 && dependent.getState() == TaskState.PENDING) {
                release(job, dependent, now);
            }
        }
    }

    /** STOP: every task not yet released is skipped. CONTINUE: only what depends on the failed task. */
    private void skipAfterFailure(JobProgress job, LogicalTask failed) {
        Deque<String> toSkip = new ArrayDeque<>();
        if (job.getFailureMode() == FailureMode.STOP) {
            toSkip.addAll(job.getTaskNames());
        } else {
            toSkip.addAll(failed.getDependents());
        }
        while (!toSkip.isEmpty()) {
            LogicalTask task = store.task(job.getJobId(), toSkip.pop());
            if (task.getState() != TaskState.PENDING) continue;
            task.setState(TaskState.SKIPPED);
            task.setReason(job.getFailureMode() == FailureMode.STOP
                    ? "not run: the job stops scheduling after its first failure (failureMode: stop)"
                    : "not run: it depends on " + failed.getName() + ", which did not succeed");
            store.putTask(job.getJobId(), task);
            job.setTasksDone(job.getTasksDone() + 1);
            if (job.getFailureMode() == FailureMode.CONTINUE) toSkip.addAll(task.getDependents());
        }
    }

    /** Makes every unit of a task READY: one attempt, or one per shard. */
    private void release(JobProgress job, LogicalTask task, long now) {
        TaskDefinition spec = store.spec(job.getJobId(), task.getName());
        cache.handDownKeys(job, spec);
        task.setState(TaskState.READY);
        store.putTask(job.getJobId(), task);
        List<String> localityFrameworks = localityFrameworks(job, spec);
        boolean scattered = spec.getScatter() != null;
        for (int shard = 0; shard < task.getShards(); shard++) {
            String unitId = scattered ? JobIds.shardId(job.getJobId(), task.getName(), shard) : JobIds.taskId(job.getJobId(), task.getName());
            TaskSummary unit = TaskSummary.newBuilder()
                    .setName(scattered ? task.getName() + "[" + shard + "]" : task.getName())
                    .setTaskId(unitId).setState(TaskState.PENDING).build();
            TaskReady ready = attempts.next(job, unit, spec, now);
            ready.setDependencyFrameworks(localityFrameworks);
            store.putUnit(unit);
            out.unitProgress(unit);
            out.ready(ready);
        }
        job.setUnitsActive(job.getUnitsActive() + task.getShards());
    }

    /** Where the task's dependencies ran: the dispatcher prefers (or, if required, insists on) these. */
    private List<String> localityFrameworks(JobProgress job, TaskDefinition spec) {
        List<String> frameworks = new ArrayList<>();
        for (String dep : spec.getDependsOn()) {
            for (String fw : store.task(job.getJobId(), dep).getFrameworks()) {
                if (!frameworks.contains(fw)) frameworks.add(fw);
            }
        }
        return frameworks;
    }

    /** @param passing the job's status, if it goes on, shows only counts moved: published as a step, not at once */
    private void finishIfDone(JobProgress job, long now, boolean passing) {
        if (job.getTasksDone() < job.getTaskNames().size() || job.getUnitsActive() > 0) {
            store.putJob(job);
            if (passing) out.jobProgress(JobReports.status(job, now));
            else out.jobStatus(JobReports.status(job, now));
            return;
        }
        JobResult result = reports.conclude(job, now);
        store.putJob(job);
        // Nothing reads a job's parts once its result is made (a late event or cancel stops at the
        // header's final state); kept, they would grow the stores and the changelogs a restarted
        // planner restores by every unit ever run. Dropped in the commit that wrote their last
        // values, most of their tombstones replace those writes rather than add to them.
        store.forgetDetails(job.getJobId());
        out.jobStatus(JobReports.status(job, now));
        out.result(result);
    }
}
