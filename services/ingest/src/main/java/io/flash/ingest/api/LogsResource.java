package io.flash.ingest.api;

import io.flash.ingest.history.JobLogs;
import io.flash.ingest.history.JobRecords;
import io.flash.ingest.view.JobViews;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Map;

/**
 * A job's output, read back from flash.tasks.logs (live while it runs; a week after, as the topic
 * keeps it): {@code GET /jobs/{id}/logs?task=align&shard=3&attempt=2}. Its owner and admins only.
 */
@Path("/jobs/{id}/logs")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class LogsResource {

    public record Logs(String jobId, List<JobLogs.AttemptLog> attempts) {
    }

    private final JobViews views;
    private final JobRecords reader;
    private final Callers callers;

    public LogsResource(JobViews views, JobRecords reader, Callers callers) {
        this.views = views;
        this.reader = reader;
        this.callers = callers;
    }

    @GET
    public Response logs(@PathParam("id") String id, @QueryParam("task") String task, @QueryParam("shard") Integer shard,
                         @QueryParam("attempt") Integer attempt) {
        Callers.Lookup job = callers.job(views, id, 0, 1, "read the logs of");
        if (job.refusal() != null) return job.refusal();
        if (shard != null && task == null) return Response.status(400).entity(Map.of("error", "shard needs task")).build();
        JobLogs.Filter filter = new JobLogs.Filter(task == null || task.isBlank() ? null : task, shard, attempt);
        return Response.ok(new Logs(id, JobLogs.assemble(id, reader.chunksOf(id, job.page().job().getAcceptedAt()), filter))).build();
    }
}
