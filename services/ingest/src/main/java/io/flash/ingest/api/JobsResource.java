package io.flash.ingest.api;

import io.flash.common.client.JobClient;
import io.flash.common.jobfile.JobFileException;
import io.flash.common.jobfile.JobFiles;
import io.flash.ingest.core.Intake;
import io.flash.ingest.core.Resubmissions;
import io.flash.ingest.core.access.Access;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.core.validation.ValidationResult;
import io.flash.ingest.history.JobRecords;
import io.flash.ingest.view.JobViews;
import io.flash.schema.JobAccepted;
import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSummary;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.*;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The HTTP face of Flash. Reads come from this instance's {@link JobViews}; writes are published to
 * Kafka (a POSTed job goes to the ingest topic like any other submission), never sent to a service.
 */
@Path("/jobs")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class JobsResource {

    public record JobView(String jobId, String submissionId, String name, String owner, String state, int tasksTotal,
                          int tasksSucceeded, int tasksRunning, int tasksFailed, String message, long updatedAt, String queue,
                          int priority, long acceptedAt, Long startedAt, Long finishedAt, double userCost, double platformCost,
                          Map<String, String> labels) {
        static JobView of(JobStatus s) {
            return new JobView(s.getJobId(), s.getSubmissionId(), s.getName(), s.getOwner(), s.getState().name(), s.getTasksTotal(),
                    s.getTasksSucceeded(), s.getTasksRunning(), s.getTasksFailed(), s.getMessage(), s.getUpdatedAt(),
                    s.getQueue(), s.getPriority(), s.getAcceptedAt(), s.getStartedAt(), s.getFinishedAt(), s.getUserCost(),
                    s.getPlatformCost(), s.getLabels() == null ? Map.of() : Map.copyOf(s.getLabels()));
        }
    }

    public record TaskView(String taskId, String name, String state, int attempts, Integer exitCode, String failureClass,
                           String reason, String frameworkId, String nodeId, Long startedAt, Long finishedAt, Long memoryBytes,
                           String stdoutTail, Long peakMemoryBytes, Double cpuSeconds, List<String> outputs,
                           Double costPerHour, double userCost, double platformCost, String cacheKey, String cachedFrom) {
        static TaskView of(TaskSummary t) {
            return new TaskView(t.getTaskId(), t.getName(), t.getState().name(), t.getAttempts(), t.getExitCode(),
                    t.getFailureClass() == null ? null : t.getFailureClass().name(), t.getReason(), t.getFrameworkId(), t.getNodeId(),
                    t.getStartedAt(), t.getFinishedAt(), t.getMemoryBytes(), t.getStdoutTail(), t.getPeakMemoryBytes(),
                    t.getCpuSeconds(), List.copyOf(t.getOutputs()), t.getCostPerHour(), t.getUserCost(), t.getPlatformCost(),
                    t.getCacheKey(), t.getCachedFrom());
        }
    }

    /** {@code unitsAgedOut}: the job finished longer ago than the view keeps its units (flash.view.keep-finished-units). */
    public record JobPage(JobView job, List<TaskView> tasks, int page, int size, int totalTasks, boolean unitsAgedOut) {
    }

    private final JobViews views;
    private final JobClient client;
    private final Callers callers;
    private final Intake validation;
    private final JobRecords records;

    public JobsResource(JobViews views, JobClient client, Callers callers, Intake validation, JobRecords records) {
        this.views = views;
        this.client = client;
        this.callers = callers;
        this.validation = validation;
        this.records = records;
    }

    @GET
    @Path("/{id}")
    public Response job(@PathParam("id") String id, @QueryParam("page") @DefaultValue("0") int page,
                        @QueryParam("size") @DefaultValue("100") int size) {
        if (callers.current().isEmpty()) return Callers.unauthenticated();
        if (page < 0 || size < 1 || size > 10_000) {
            return error(400, "page must be 0 or more and size between 1 and 10000");
        }
        Callers.Lookup job = callers.job(views, id, page, size, "read");
        if (job.refusal() != null) return job.refusal();
        JobViews.Page p = job.page();
        return Response.ok(new JobPage(JobView.of(p.job()), p.tasks().stream().map(TaskView::of).toList(), p.page(), p.size(),
                p.totalTasks(), p.unitsAgedOut())).build();
    }

    /**
     * The jobs the caller may see, most recently changed first: {@code owner}, {@code state},
     * {@code name} (a prefix), {@code since}/{@code until} (accepted between, ms), {@code offset} and
     * {@code limit} page; the header {@code X-Total-Count} says how many match in all.
     */
    @GET
    public Response jobs(@QueryParam("owner") String owner, @QueryParam("state") String state,
                         @QueryParam("limit") @DefaultValue("100") int limit, @QueryParam("offset") @DefaultValue("0") int offset,
                         @QueryParam("name") String name, @QueryParam("since") Long since, @QueryParam("until") Long until) {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        JobState wanted = null;
        if (state != null && !state.isBlank()) {
            try {
                wanted = JobState.valueOf(state.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return error(400, "state must be one of " + List.of(JobState.values()));
            }
        }
        if (offset < 0) return error(400, "offset must be 0 or more");
        JobViews.JobList list = views.find(new JobViews.Filter(Access.listedOwner(caller.get(), owner), wanted,
                name == null || name.isBlank() ? null : name, since, until), offset, Math.max(1, Math.min(limit, 10_000)));
        return Response.ok(list.jobs().stream().map(JobView::of).toList()).header("X-Total-Count", list.total()).build();
    }

    /** A job file (YAML or JSON) in the body; validated, then published to the ingest topic (202: it runs asynchronously). */
    @POST
    @Consumes({MediaType.WILDCARD})
    public Response submit(String body) throws Exception {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        JobSubmission job;
        try {
            job = JobFiles.parse(body);
        } catch (JobFileException e) {
            return error(400, e.getMessage());
        }
        Access.Ownership ownership = Access.ownerOf(caller.get(), job.getOwner());
        if (ownership.refusal() != null) return error(403, ownership.refusal());
        if (ownership.owner() != null) job.setOwner(ownership.owner());
        if (job.getSubmissionId() == null || job.getSubmissionId().isBlank()) job.setSubmissionId(UUID.randomUUID().toString());
        return checkedAndPublished(job, Map.of());
    }

    /**
     * Submits the job again as it was accepted, under a new id ({@code submissionId} when given: a
     * client that retries the request gets the same job, not a second one). Units whose cache key is
     * unchanged are served from the cache (docs/caching.md). Its owner or an admin may ask; it runs
     * as its owner's.
     */
    @POST
    @Path("/{id}/resubmit")
    public Response resubmit(@PathParam("id") String id, @QueryParam("submissionId") String submissionId) throws Exception {
        Callers.Lookup job = callers.job(views, id, 0, 1, "resubmit");
        if (job.refusal() != null) return job.refusal();
        JobStatus status = job.page().job();
        Optional<JobAccepted> accepted = records.acceptedOf(id, status.getAcceptedAt());
        if (accepted.isEmpty() || accepted.get().getSourceOffset() < 0) {
            return error(409, "the submission of " + id + " cannot be read back (accepted before resubmit was recorded, or past"
                    + " flash.jobs.accepted's retention of 7 days): submit its job file again");
        }
        Optional<JobSubmission> original = records.submissionAt(accepted.get().getSourcePartition(), accepted.get().getSourceOffset());
        if (original.isEmpty()) {
            return error(410, "the submission of " + id + " is no longer on flash.jobs.submitted (kept 7 days): submit its job file again");
        }
        JobSubmission again = Resubmissions.of(original.get(), id,
                submissionId == null || submissionId.isBlank() ? UUID.randomUUID().toString() : submissionId);
        Access.Ownership ownership = Access.ownerOf(callers.current().orElseThrow(), status.getOwner());
        if (ownership.refusal() != null) return error(403, ownership.refusal() + " (a job is submitted again by its owner)");
        again.setOwner(ownership.owner() != null ? ownership.owner() : status.getOwner());
        return checkedAndPublished(again, Map.of("resubmitOf", id));
    }

    /**
     * Checked before it is published: an id this door answers with always resolves (a rejection after
     * publishing would leave the client polling a 404).
     */
    private Response checkedAndPublished(JobSubmission job, Map<String, String> more) throws Exception {
        ValidationResult checked = validation.check(job, job.getSubmissionId(), System.currentTimeMillis());
        if (!checked.isAccepted()) {
            List<String> errors = checked.errors().stream().map(e -> e.getField() + ": " + e.getReason()).toList();
            return Response.status(400).entity(Map.of("error", String.join("; ", errors), "errors", errors)).build();
        }
        String jobId = client.submit(job, callers.token());
        Map<String, String> answer = new LinkedHashMap<>(Map.of("jobId", jobId, "submissionId", job.getSubmissionId(),
                "status", "/jobs/" + jobId));
        answer.putAll(more);
        return Response.accepted(answer).build();
    }

    @POST
    @Path("/{id}/cancel")
    public Response cancel(@PathParam("id") String id, @QueryParam("reason") String reason) throws Exception {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        if (!caller.get().open()) { // open: a cancel may come before this instance has seen the job
            Optional<JobViews.Page> job = views.job(id, 0, 1);
            if (job.isEmpty()) return error(404, "no job " + id);
            if (!Access.mayAct(caller.get(), job.get().job().getOwner())) return Callers.forbidden(caller.get(), job.get().job().getOwner(), "cancel");
        }
        client.cancel(id, reason);
        return Response.accepted(Map.of("jobId", id, "cancel", "requested")).build();
    }

    private static Response error(int status, String message) {
        return Response.status(status).entity(Map.of("error", message)).build();
    }
}
