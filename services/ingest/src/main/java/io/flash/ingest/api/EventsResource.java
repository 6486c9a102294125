package io.flash.ingest.api;

import io.flash.ingest.core.access.Access;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.view.JobFollow;
import io.flash.ingest.view.JobViews;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskSummary;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.BackPressureStrategy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * Live updates as server-sent events, straight from the status topics this instance follows:
 * {@code GET /events} streams every change of a job the caller may see; {@code GET /events?job=ID}
 * first the job and all its tasks as they are (a snapshot), then its changes and its tasks'
 * ({@link JobFollow}: nothing falls between the snapshot and the first change, and no change is sent
 * before a snapshot older than it; a change may come twice). A ping every 15 s keeps idle
 * connections open and lets a client notice a dead one. No RPC: what arrives on the compacted
 * topics is what is sent.
 */
@Path("/events")
@ApplicationScoped
public class EventsResource {

    static final Duration PING_EVERY = Duration.ofSeconds(15);

    /**
     * One event: {@code kind} is hello (connected), snapshot (the job and every task of it), job, task
     * or ping; {@code at} when it was sent (ms).
     */
    public record LiveEvent(String kind, JobsResource.JobView job, String jobId, JobsResource.TaskView task,
                            List<JobsResource.TaskView> tasks, long at) {
        static LiveEvent of(String kind) {
            return new LiveEvent(kind, null, null, null, null, System.currentTimeMillis());
        }
    }

    private final JobViews views;
    private final Callers callers;

    public EventsResource(JobViews views, Callers callers) {
        this.views = views;
        this.callers = callers;
    }

    /** On a worker thread: who calls is verified lazily (quarkus.http.auth.proactive=false), which may block. */
    @GET
    @Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<LiveEvent> events(@QueryParam("job") String job) {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) throw refused(Callers.unauthenticated());
        if (job != null) {
            Callers.Lookup lookup = callers.job(views, job, 0, 1, "follow");
            if (lookup.refusal() != null) throw refused(lookup.refusal());
        }
        Caller who = caller.get();
        Multi<LiveEvent> updates = Multi.createFrom().emitter(emitter -> {
            if (job == null) {
                JobViews.Listener listener = new JobViews.Listener() {
                    @Override
                    public void job(JobStatus status) {
                        if (Access.mayAct(who, status.getOwner())) emitter.emit(jobEvent(status));
                    }

                    @Override
                    public void task(String jobId, TaskSummary summary) {
                        // only a followed job's tasks are sent
                    }
                };
                views.listen(listener);
                emitter.onTermination(() -> views.unlisten(listener));
                return;
            }
            JobFollow follow = new JobFollow(views, job, new JobFollow.Sink() {
                @Override
                public void snapshot(JobStatus status, List<TaskSummary> units) {
                    emitter.emit(new LiveEvent("snapshot", JobsResource.JobView.of(status), job, null,
                            units.stream().map(JobsResource.TaskView::of).toList(), System.currentTimeMillis()));
                }

                @Override
                public void job(JobStatus status) {
                    if (Access.mayAct(who, status.getOwner())) emitter.emit(jobEvent(status));
                }

                @Override
                public void task(TaskSummary unit) {
                    emitter.emit(new LiveEvent("task", null, job, JobsResource.TaskView.of(unit), null, System.currentTimeMillis()));
                }
            });
            emitter.onTermination(follow::stop);
            follow.start();
        }, BackPressureStrategy.BUFFER);
        Multi<LiveEvent> pings = Multi.createFrom().ticks().every(PING_EVERY).map(t -> LiveEvent.of("ping"));
        return Multi.createBy().merging().streams(Multi.createFrom().item(LiveEvent.of("hello")), updates, pings);
    }

    private static LiveEvent jobEvent(JobStatus status) {
        return new LiveEvent("job", JobsResource.JobView.of(status), status.getJobId(), null, null, System.currentTimeMillis());
    }

    /** A refusal in JSON, as every door's: this method's own type (event stream) cannot carry it. */
    private static WebApplicationException refused(Response refusal) {
        return new WebApplicationException(Response.fromResponse(refusal).type(MediaType.APPLICATION_JSON).build());
    }
}
