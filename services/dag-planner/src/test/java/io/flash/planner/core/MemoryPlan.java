package io.flash.planner.core;

import io.flash.schema.*;

import java.util.*;
import java.util.function.Consumer;

/** An in-memory PlanStore and Outbox: what the planner stored and published, for assertions. */
final class MemoryPlan implements PlanStore, Outbox {

    final Map<String, JobProgress> jobs = new HashMap<>();
    final Map<String, TaskDefinition> specs = new HashMap<>();
    final Map<String, LogicalTask> tasks = new HashMap<>();
    final TreeMap<String, TaskSummary> units = new TreeMap<>();
    final List<TaskReady> ready = new ArrayList<>();
    final List<DelayedAttempt> delayed = new ArrayList<>();
    final List<JobStatus> statuses = new ArrayList<>();
    /** Job steps published only if they last ({@link Outbox#jobProgress}). */
    final List<JobStatus> jobSteps = new ArrayList<>();
    int unitStatuses;
    /** The unit last published at once ({@link Outbox#unitStatus}). */
    TaskSummary lastUnitStatus;
    /** Steps the planner lets the adapter publish only if they last ({@link Outbox#unitProgress}). */
    int unitSteps;
    final List<JobResult> results = new ArrayList<>();
    final List<CacheEntry> cacheEntries = new ArrayList<>();
    final List<String> droppedEntries = new ArrayList<>();
    final List<ResourceObservation> observations = new ArrayList<>();
    final Map<String, ResourceEstimate> estimates = new HashMap<>();
    /** What the frameworks' heartbeats say of their largest node (0: none reported). */
    long largestNodeMemory;
    /** What the frameworks' heartbeats say of their largest node's cpu (0: none reported). */
    double largestNodeCpu;

    /** Takes the attempts published since the last call. */
    List<TaskReady> drainReady() {
        List<TaskReady> drained = new ArrayList<>(ready);
        ready.clear();
        return drained;
    }

    JobResult onlyResult() {
        if (results.size() != 1) throw new AssertionError("expected one result, got " + results);
        return results.get(0);
    }

    @Override public JobProgress job(String jobId) { return copy(jobs.get(jobId)); }
    @Override public void putJob(JobProgress job) { jobs.put(job.getJobId(), copy(job)); }
    @Override public TaskDefinition spec(String jobId, String name) { return copy(specs.get(jobId + "/" + name)); }
    @Override public void putSpec(String jobId, TaskDefinition spec) { specs.put(jobId + "/" + spec.getName(), copy(spec)); }
    @Override public LogicalTask task(String jobId, String name) { return copy(tasks.get(jobId + "/" + name)); }
    @Override public void putTask(String jobId, LogicalTask task) { tasks.put(jobId + "/" + task.getName(), copy(task)); }
    @Override public TaskSummary unit(String unitId) { return copy(units.get(unitId)); }
    @Override public void putUnit(TaskSummary unit) { units.put(unit.getTaskId(), copy(unit)); }
    @Override public void deleteUnit(String unitId) { units.remove(unitId); }

    @Override
    public void forEachUnit(String jobId, Consumer<TaskSummary> action) {
        new ArrayList<>(units.subMap(jobId + ".", jobId + ".\uffff").values()).forEach(u -> action.accept(copy(u)));
    }

    @Override
    public void forgetDetails(String jobId) {
        units.subMap(jobId + ".", jobId + ".\uffff").clear();
        specs.keySet().removeIf(key -> key.startsWith(jobId + "/"));
        tasks.keySet().removeIf(key -> key.startsWith(jobId + "/"));
    }

    @Override public ResourceEstimate estimate(String signature) { return estimates.get(signature); }
    @Override public long largestNodeMemory() { return largestNodeMemory; }
    @Override public double largestNodeCpu() { return largestNodeCpu; }
    @Override public void observed(ResourceObservation o) { observations.add(o); }
    @Override public void ready(TaskReady r) { ready.add(r); }
    @Override public void later(DelayedAttempt attempt) { delayed.add(attempt); }
    @Override public void unitStatus(TaskSummary unit) {
        unitStatuses++;
        lastUnitStatus = copy(unit);
    }
    @Override public void unitProgress(TaskSummary unit) { unitSteps++; }
    @Override public void jobStatus(JobStatus status) { statuses.add(status); }
    @Override public void jobProgress(JobStatus status) { jobSteps.add(status); }
    @Override public void result(JobResult result) { results.add(result); }
    @Override public void cacheEntry(CacheEntry entry) { cacheEntries.add(entry); }
    @Override public void cacheDropped(String id) { droppedEntries.add(id); }

    /** Stores hand out copies, as a real store deserialises a fresh object on every read. */
    @SuppressWarnings("unchecked")
    private static <T extends org.apache.avro.specific.SpecificRecord> T copy(T value) {
        return value == null ? null : (T) org.apache.avro.specific.SpecificData.get().deepCopy(value.getSchema(), value);
    }
}
