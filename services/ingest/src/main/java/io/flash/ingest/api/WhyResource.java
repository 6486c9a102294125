package io.flash.ingest.api;

import io.flash.ingest.view.FrameworkLimits;
import io.flash.ingest.view.JobViews;
import io.flash.ingest.view.PendingReasons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

/** {@code GET /jobs/{id}/why[?task=NAME]}: every waiting task or shard of the job, and why it waits. */
@Path("/jobs/{id}/why")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class WhyResource {

    public record Why(String jobId, String state, List<PendingReasons.Waiting> waiting) {
    }

    private final JobViews views;
    private final FrameworkLimits frameworks;
    private final Callers callers;

    public WhyResource(JobViews views, FrameworkLimits frameworks, Callers callers) {
        this.views = views;
        this.frameworks = frameworks;
        this.callers = callers;
    }

    @GET
    public Response why(@PathParam("id") String id, @QueryParam("task") String task) {
        Callers.Lookup job = callers.job(views, id, 0, 10_000, "read");
        if (job.refusal() != null) return job.refusal();
        List<PendingReasons.Waiting> waiting = PendingReasons.of(job.page().tasks(), frameworks.heartbeats(), System.currentTimeMillis())
                .stream().filter(w -> task == null || w.name().equals(task) || w.name().startsWith(task + "[")).toList();
        return Response.ok(new Why(id, job.page().job().getState().name(), waiting)).build();
    }
}
