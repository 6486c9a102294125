package io.flash.ingest.core;

import io.flash.schema.JobSubmission;
import java.util.HashMap;
import java.util.Map;

/**
 * A job submitted again: the accepted submission as it was, under a new submission id, labelled
 * with the job it repeats. Its units whose cache keys did not change are served from the cache
 * (docs/caching.md), so a job that failed at its seventh step starts again at the seventh.
 */
public final class Resubmissions {

    /** The label a resubmitted job carries: the id of the job it submits again. */
    public static final String LABEL = "resubmit-of";

    private Resubmissions() {
    }

    public static JobSubmission of(JobSubmission accepted, String jobId, String submissionId) {
        JobSubmission again = JobSubmission.newBuilder(accepted).setSubmissionId(submissionId).build();
        Map<String, String> labels = new HashMap<>(accepted.getLabels() == null ? Map.of() : accepted.getLabels());
        labels.put(LABEL, jobId);
        again.setLabels(labels);
        return again;
    }
}
