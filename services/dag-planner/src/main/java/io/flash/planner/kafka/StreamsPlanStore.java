package io.flash.planner.kafka;

import io.flash.common.ids.JobIds;
import io.flash.common.streams.StoreTable;
import io.flash.planner.core.PlanStore;
import io.flash.schema.*;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static io.flash.planner.kafka.PlannerTopology.*;

/**
 * The planner's {@link PlanStore} over one stream task's stores. A small job (at most
 * {@link #WHOLE_JOB_PARTS} units and tasks, its record at most {@link #WHOLE_JOB_BYTES}) is kept
 * whole, one {@link WholeJob} record under its id: changed in memory while a record is handled and
 * written once by {@link #flush}, so a commit writes one changelog record for it, not one per part.
 * A larger job keeps its parts under their own keys: its header by id, its task definitions and
 * counters by "jobId/task", its units by id. A job never changes how it is kept, and one kept
 * split before whole jobs existed is read where it is. Also the global estimates and framework
 * heartbeats every task reads.
 */
final class StreamsPlanStore implements PlanStore {

    /** The most units, and the most tasks, a job kept whole may have. */
    static final int WHOLE_JOB_PARTS = 16;
    /** The largest a job kept whole may be when accepted (its units' results grow it by at most ~8 KiB each). */
    static final int WHOLE_JOB_BYTES = 256 * 1024;
    /** How many jobs kept split are remembered as such (a miss costs two store reads). */
    static final int KNOWN_SPLIT_JOBS = 4_096;
    /** Marks a job, among those opened, that is kept split. */
    private static final WholeJobParts SPLIT = WholeJobParts.fresh();

    private final KeyValueStore<String, WholeJob> wholeJobs;
    private final KeyValueStore<String, JobProgress> jobs;
    private final KeyValueStore<String, TaskDefinition> specs;
    private final KeyValueStore<String, LogicalTask> tasks;
    private final KeyValueStore<String, TaskSummary> units;
    private final KeyValueStore<String, ResourceEstimate> estimates;
    private final KeyValueStore<String, FrameworkHeartbeat> frameworks;
    /** The jobs the record being handled has touched, by id: whole ones open, split ones marked. */
    private final Map<String, WholeJobParts> open = new HashMap<>();
    /**
     * Jobs known to be kept split, the most recently used first to stay: a job never changes how it
     * is kept, so a scatter's events skip the whole-jobs lookup that misses and the header read
     * that only told it was split (6 % of the planner's samples at 100,000 queued shards).
     * In memory: after a restart each is found split again once.
     */
    private final Map<String, Boolean> knownSplit = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KNOWN_SPLIT_JOBS;
        }
    };

    StreamsPlanStore(ProcessorContext<?, ?> context) {
        wholeJobs = context.getStateStore(WHOLE_JOBS_STORE);
        jobs = context.getStateStore(JOBS_STORE);
        specs = context.getStateStore(SPECS_STORE);
        tasks = context.getStateStore(TASKS_STORE);
        units = context.getStateStore(UNITS_STORE);
        estimates = context.getStateStore(ESTIMATES_STORE);
        frameworks = context.getStateStore(FRAMEWORKS_STORE);
    }

    /**
     * Writes every whole job the record changed, one record each (a new job whose size does not fit
     * is written split), and closes them. Called once a record is handled.
     */
    void flush() {
        try {
            open.forEach((jobId, parts) -> {
                if (parts == SPLIT || !parts.changed()) return;
                WholeJob record = parts.record();
                if (parts.stored() || fitsWhole(record)) wholeJobs.put(jobId, record);
                else split(jobId, parts);
            });
        } finally {
            open.clear();
        }
    }

    private static boolean fitsWhole(WholeJob record) {
        JobProgress job = record.getJob();
        return job != null && job.getUnitsTotal() <= WHOLE_JOB_PARTS && job.getTaskNames().size() <= WHOLE_JOB_PARTS
                && sizeOf(record) <= WHOLE_JOB_BYTES;
    }

    private static int sizeOf(WholeJob record) {
        try {
            return record.toByteBuffer().remaining();
        } catch (IOException e) {
            throw new UncheckedIOException("job " + record.getJob().getJobId() + " could not be measured", e);
        }
    }

    private void split(String jobId, WholeJobParts parts) {
        knownSplit.put(jobId, Boolean.TRUE);
        parts.specs().forEach(spec -> specs.put(jobId + "/" + spec.getName(), spec));
        parts.tasks().forEach(task -> tasks.put(jobId + "/" + task.getName(), task));
        parts.storedUnits().forEach(unit -> units.put(unit.getTaskId(), unit));
        if (parts.header() != null) jobs.put(jobId, parts.header());
    }

    /** The job opened whole, or null if it is kept split. */
    private WholeJobParts whole(String jobId) {
        WholeJobParts parts = open.get(jobId);
        if (parts == null) {
            parts = knownSplit.get(jobId) != null ? SPLIT : lookUp(jobId);
            open.put(jobId, parts);
        }
        return parts == SPLIT ? null : parts;
    }

    private WholeJobParts lookUp(String jobId) {
        WholeJob stored = wholeJobs.get(jobId);
        if (stored != null) return WholeJobParts.of(stored);
        if (jobs.get(jobId) == null) return WholeJobParts.fresh();
        knownSplit.put(jobId, Boolean.TRUE);
        return SPLIT;
    }

    @Override
    public JobProgress job(String jobId) {
        WholeJobParts whole = whole(jobId);
        return whole != null ? whole.job() : jobs.get(jobId);
    }

    @Override
    public void putJob(JobProgress job) {
        WholeJobParts whole = whole(job.getJobId());
        if (whole != null) whole.putJob(job);
        else jobs.put(job.getJobId(), job);
    }

    @Override
    public TaskDefinition spec(String jobId, String taskName) {
        WholeJobParts whole = whole(jobId);
        return whole != null ? whole.spec(taskName) : specs.get(jobId + "/" + taskName);
    }

    @Override
    public void putSpec(String jobId, TaskDefinition spec) {
        WholeJobParts whole = whole(jobId);
        if (whole != null) whole.putSpec(spec);
        else specs.put(jobId + "/" + spec.getName(), spec);
    }

    @Override
    public LogicalTask task(String jobId, String taskName) {
        WholeJobParts whole = whole(jobId);
        return whole != null ? whole.task(taskName) : tasks.get(jobId + "/" + taskName);
    }

    @Override
    public void putTask(String jobId, LogicalTask task) {
        WholeJobParts whole = whole(jobId);
        if (whole != null) whole.putTask(task);
        else tasks.put(jobId + "/" + task.getName(), task);
    }

    @Override
    public TaskSummary unit(String unitId) {
        WholeJobParts whole = whole(JobIds.jobOfAttempt(unitId));
        return whole != null ? whole.unit(unitId) : units.get(unitId);
    }

    @Override
    public void putUnit(TaskSummary unit) {
        WholeJobParts whole = whole(JobIds.jobOfAttempt(unit.getTaskId()));
        if (whole != null) whole.putUnit(unit);
        else units.put(unit.getTaskId(), unit);
    }

    @Override
    public void deleteUnit(String unitId) {
        WholeJobParts whole = whole(JobIds.jobOfAttempt(unitId));
        if (whole != null) whole.deleteUnit(unitId);
        else units.delete(unitId);
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
        WholeJobParts whole = whole(jobId);
        if (whole != null) {
            whole.units().forEach(action);
            return;
        }
        List<TaskSummary> found = new ArrayList<>();
        try (KeyValueIterator<String, TaskSummary> it = units.prefixScan(jobId + ".", new StringSerializer())) {
            it.forEachRemaining(kv -> found.add(kv.value));
        }
        found.forEach(action);
    }

    @Override
    public void forgetDetails(String jobId) {
        WholeJobParts whole = whole(jobId);
        if (whole != null) {
            whole.forgetDetails();
            return;
        }
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
