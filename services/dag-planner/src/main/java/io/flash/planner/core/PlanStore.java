package io.flash.planner.core;

import io.flash.schema.*;

import java.util.function.Consumer;

/**
 * Where the planner keeps a job, split so that no record grows with the job: a small header, one
 * definition and one counter record per task, one record per runnable unit (a task or a shard).
 */
public interface PlanStore {

    JobProgress job(String jobId);

    void putJob(JobProgress job);

    TaskDefinition spec(String jobId, String taskName);

    void putSpec(String jobId, TaskDefinition spec);

    LogicalTask task(String jobId, String taskName);

    void putTask(String jobId, LogicalTask task);

    TaskSummary unit(String unitId);

    void putUnit(TaskSummary unit);

    void deleteUnit(String unitId);

    /** What earlier runs of a task signature used, if known. */
    ResourceEstimate estimate(String signature);

    /**
     * The most memory one node of any framework offers (its heartbeats' largest node), or 0 while no
     * framework has reported: an OOM-killed attempt never grows past it.
     */
    long largestNodeMemory();

    /** The most cpu one node of any framework offers, or 0 while no framework has reported: an estimate never asks for more. */
    double largestNodeCpu();

    /** Every unit of the job, in id order. */
    void forEachUnit(String jobId, Consumer<TaskSummary> action);

    /**
     * Drops the job's task definitions, task counters and units; its header stays (its id
     * resolves, a repeated submission is still told which job it was).
     */
    void forgetDetails(String jobId);
}
