package io.flash.common.ids;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A job id is derived from the submission id, so a submission delivered twice (a client retry, or
 * ingest re-reading after a crash) names the same job, and the planner runs it once.
 */
public final class JobIds {
    private JobIds() {
    }

    /** Task ids are readable: {@code <jobId>.<taskName>}. */
    public static String taskId(String jobId, String taskName) {
        return jobId + "." + taskName;
    }

    /** A shard of a scattered task: {@code <jobId>.<taskName>.s<index>} (task names contain no dot). */
    public static String shardId(String jobId, String taskName, int shard) {
        return taskId(jobId, taskName) + ".s" + shard;
    }

    /** The task name inside a task or shard id of this job. */
    public static String taskName(String jobId, String unitId) {
        String rest = unitId.substring(jobId.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    /** The job of a task, shard or attempt id (a job id has no dot). */
    public static String jobOfAttempt(String id) {
        int dot = id.indexOf('.');
        return dot < 0 ? id : id.substring(0, dot);
    }

    /** Attempt ids: {@code <taskId>.<n>}, n counting from 1. */
    public static String attemptId(String taskId, int attempt) {
        return taskId + "." + attempt;
    }

    /** The open mode's job id: one submission id names one job, whoever sends it. */
    public static String forSubmission(String submissionId) {
        return "job-" + UUID.nameUUIDFromBytes(("flash-job:" + submissionId).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The secure mode's job id: a submission id is scoped by its owner (the signed-in user), so two
     * users may use the same one and neither can take or learn of the other's job by it. A null
     * owner gives the open mode's id.
     */
    public static String forSubmission(String owner, String submissionId) {
        if (owner == null) return forSubmission(submissionId);
        return "job-" + UUID.nameUUIDFromBytes(("flash-job:" + owner + "/" + submissionId).getBytes(StandardCharsets.UTF_8));
    }
}
