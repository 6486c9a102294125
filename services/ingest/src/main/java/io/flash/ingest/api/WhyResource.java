package io.flash.ingest.api;

import io.flash.ingest.access.Access;
import io.flash.ingest.access.Caller;
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
import java.util.Map;
import java.util.Optional;

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
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        Optional<JobViews.Page> job = views.job(id, 0, 10_000);
        if (job.isEmpty()) return Response.status(404).entity(Map.of("error", "no job " + id + " (yet)")).build();
        if (!Access.mayAct(caller.get(), job.get().job().getOwner())) return Callers.forbidden(caller.get(), job.get().job().getOwner(), "read");
        List<PendingReasons.Waiting> waiting = PendingReasons.of(job.get().tasks(), frameworks.heartbeats(), System.currentTimeMillis())
                .stream().filter(w -> task == null || w.name().equals(task) || w.name().startsWith(task + "[")).toList();
        return Response.ok(new Why(id, job.get().job().getState().name(), waiting)).build();
    }
}
