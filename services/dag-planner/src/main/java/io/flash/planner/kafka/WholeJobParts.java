package io.flash.planner.kafka;

import io.flash.schema.*;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One job kept whole ({@link WholeJob}), opened for the record being handled: its parts by name and
 * id, changed in memory and written back as one record when the record is handled. What goes in
 * and comes out is copied, so a part changed and not put back stays as it was stored, as it would
 * under its own key.
 */
final class WholeJobParts {

    private JobProgress job;
    private final Map<String, TaskDefinition> specs = new LinkedHashMap<>();
    private final Map<String, LogicalTask> tasks = new LinkedHashMap<>();
    /** By unit id: a job's units are listed in id order, as the units store's prefix scan lists them. */
    private final TreeMap<String, TaskSummary> units = new TreeMap<>();
    /** Whether the whole-jobs store holds this job already (a job never changes how it is kept). */
    private final boolean stored;
    private boolean changed;

    private WholeJobParts(boolean stored) {
        this.stored = stored;
    }

    /** A job no store knows yet: held whole until it is written, when its size decides how it is kept. */
    static WholeJobParts fresh() {
        return new WholeJobParts(false);
    }

    static WholeJobParts of(WholeJob record) {
        WholeJobParts parts = new WholeJobParts(true);
        parts.job = record.getJob();
        record.getSpecs().forEach(spec -> parts.specs.put(spec.getName(), spec));
        record.getTasks().forEach(task -> parts.tasks.put(task.getName(), task));
        record.getUnits().forEach(unit -> parts.units.put(unit.getTaskId(), unit));
        return parts;
    }

    boolean stored() {
        return stored;
    }

    boolean changed() {
        return changed;
    }

    JobProgress job() {
        return copy(job);
    }

    void putJob(JobProgress value) {
        job = copy(value);
        changed = true;
    }

    TaskDefinition spec(String name) {
        return copy(specs.get(name));
    }

    void putSpec(TaskDefinition spec) {
        specs.put(spec.getName(), copy(spec));
        changed = true;
    }

    LogicalTask task(String name) {
        return copy(tasks.get(name));
    }

    void putTask(LogicalTask task) {
        tasks.put(task.getName(), copy(task));
        changed = true;
    }

    TaskSummary unit(String unitId) {
        return copy(units.get(unitId));
    }

    void putUnit(TaskSummary unit) {
        units.put(unit.getTaskId(), copy(unit));
        changed = true;
    }

    void deleteUnit(String unitId) {
        changed |= units.remove(unitId) != null;
    }

    List<TaskSummary> units() {
        return units.values().stream().map(WholeJobParts::copy).toList();
    }

    void forgetDetails() {
        changed |= !specs.isEmpty() || !tasks.isEmpty() || !units.isEmpty();
        specs.clear();
        tasks.clear();
        units.clear();
    }

    /** The job's header, or null while it has none (a job no store knows, not accepted by this record). */
    JobProgress header() {
        return job;
    }

    Collection<TaskDefinition> specs() {
        return specs.values();
    }

    Collection<LogicalTask> tasks() {
        return tasks.values();
    }

    Collection<TaskSummary> storedUnits() {
        return units.values();
    }

    WholeJob record() {
        return new WholeJob(job, new ArrayList<>(specs.values()), new ArrayList<>(tasks.values()), new ArrayList<>(units.values()));
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> T copy(T value) {
        return value == null ? null : (T) SpecificData.getForSchema(value.getSchema()).deepCopy(value.getSchema(), value);
    }
}
