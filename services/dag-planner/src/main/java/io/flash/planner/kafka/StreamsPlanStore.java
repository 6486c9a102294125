package io.flash.planner.kafka;

import io.flash.common.streams.StoreTable;
import io.flash.planner.core.PlanStore;
import io.flash.schema.*;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static io.flash.planner.kafka.PlannerTopology.*;

/**
 * The planner's {@link PlanStore} over one stream task's stores: a job's header, its task
 * definitions and counters ("jobId/task"), its units by id, and the global estimates and framework
 * heartbeats every task reads.
 */
final class StreamsPlanStore implements PlanStore {

    private final KeyValueStore<String, JobProgress> jobs;
    private final KeyValueStore<String, TaskDefinition> specs;
    private final KeyValueStore<String, LogicalTask> tasks;
    private final KeyValueStore<String, TaskSummary> units;
    private final KeyValueStore<String, ResourceEstimate> estimates;
    private final KeyValueStore<String, FrameworkHeartbeat> frameworks;

    StreamsPlanStore(ProcessorContext<?, ?> context) {
        jobs = context.getStateStore(JOBS_STORE);
        specs = context.getStateStore(SPECS_STORE);
        tasks = context.getStateStore(TASKS_STORE);
        units = context.getStateStore(UNITS_STORE);
        estimates = context.getStateStore(ESTIMATES_STORE);
        frameworks = context.getStateStore(FRAMEWORKS_STORE);
    }


    @Override
    public JobProgress job(String jobId) {
        return jobs.get(jobId);
    }

    @Override
    public void putJob(JobProgress job) {
        jobs.put(job.getJobId(), job);
    }

    @Override
    public TaskDefinition spec(String jobId, String taskName) {
        return specs.get(jobId + "/" + taskName);
    }

    @Override
    public void putSpec(String jobId, TaskDefinition spec) {
        specs.put(jobId + "/" + spec.getName(), spec);
    }

    @Override
    public LogicalTask task(String jobId, String taskName) {
        return tasks.get(jobId + "/" + taskName);
    }

    @Override
    public void putTask(String jobId, LogicalTask task) {
        tasks.put(jobId + "/" + task.getName(), task);
    }

    @Override
    public TaskSummary unit(String unitId) {
        return units.get(unitId);
    }

    @Override
    public void putUnit(TaskSummary unit) {
        units.put(unit.getTaskId(), unit);
    }

    @Override
    public void deleteUnit(String unitId) {
        units.delete(unitId);
    }

    @Override
    public ResourceEstimate estimate(String signature) {
        return estimates.get(signature);
    }

    @Override
    public long largestNodeMemory() {
        return new StoreTable<>(frameworks).values().stream().mapToLong(h -> h.getLargestNodeTotal().getMemoryBytes()).max().orElse(0);
    }

    @Override
    public double largestNodeCpu() {
        return new StoreTable<>(frameworks).values().stream().mapToDouble(h -> h.getLargestNodeTotal().getCpu()).max().orElse(0);
    }

    @Override
    public void forEachUnit(String jobId, Consumer<TaskSummary> action) {
        List<TaskSummary> found = new ArrayList<>();
        try (KeyValueIterator<String, TaskSummary> it = units.prefixScan(jobId + ".", new StringSerializer())) {
            it.forEachRemaining(kv -> found.add(kv.value));
        }
        found.forEach(action);
    }

    @Override
    public void forgetDetails(String jobId) {
        deleteAll(units, jobId + ".");
        deleteAll(tasks, jobId + "/");
        deleteAll(specs, jobId + "/");
    }

    private static <V> void deleteAll(KeyValueStore<String, V> store, String prefix) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.prefixScan(prefix, new StringSerializer())) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.forEach(store::delete);
    }
}
