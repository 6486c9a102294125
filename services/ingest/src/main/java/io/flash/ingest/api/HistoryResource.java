package io.flash.ingest.api;

import io.flash.ingest.history.Attempts;
import io.flash.ingest.history.JobGraph;
import io.flash.ingest.history.JobRecords;
import io.flash.ingest.view.JobViews;
import io.flash.schema.JobAccepted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * A job's shape and history, read back from the topics on request: {@code GET /jobs/{id}/graph}
 * (its DAG with each task's state) and {@code GET /jobs/{id}/attempts} (every attempt: the Gantt).
 * Its owner and admins only.
 */
@Path("/jobs/{id}")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class HistoryResource {

    public record AttemptList(String jobId, long acceptedAt, List<Attempts.Attempt> attempts) {
    }

    private final JobViews views;
    private final JobRecords records;
    private final Callers callers;

    public HistoryResource(JobViews views, JobRecords records, Callers callers) {
        this.views = views;
        this.records = records;
        this.callers = callers;
    }

    @GET
    @Path("/graph")
    public Response graph(@PathParam("id") String id) {
        Callers.Lookup job = callers.job(views, id, 0, 1, "read");
        if (job.refusal() != null) return job.refusal();
        JobAccepted spec = records.acceptedOf(id, job.page().job().getAcceptedAt()).orElse(null);
        return Response.ok(JobGraph.of(id, spec, views.units(id))).build();
    }

    @GET
    @Path("/attempts")
    public Response attempts(@PathParam("id") String id) {
        Callers.Lookup job = callers.job(views, id, 0, 1, "read");
        if (job.refusal() != null) return job.refusal();
        long acceptedAt = job.page().job().getAcceptedAt();
        return Response.ok(new AttemptList(id, acceptedAt, Attempts.assemble(id, records.eventsOf(id, acceptedAt)))).build();
    }
}
