package io.flash.ingest.view;

import io.flash.schema.JobStatus;
import io.flash.schema.TaskSummary;
import java.util.ArrayList;
import java.util.List;

/**
 * One job followed live: its snapshot (the job and every unit as the view holds them) first, then
 * each change the view takes in after it, in the view's order.
 *
 * <p>It listens before it takes the snapshot, so no change falls between the two. A change that
 * arrives while the snapshot is read is held and sent after it: sent before it, an older snapshot
 * would overwrite it at the reader, which has no version to tell the two apart, and a unit that
 * changes no more would stay in its older state for good (a task shown pending while it runs).
 * Held changes may repeat what the snapshot holds; the last thing sent for each unit is its newest.
 */
public final class JobFollow implements JobViews.Listener {

    /** Where the follow sends; called on one thread at a time, never blocking the view's feed for long. */
    public interface Sink {
        void snapshot(JobStatus job, List<TaskSummary> units);

        void job(JobStatus status);

        void task(TaskSummary unit);
    }

    private final JobViews views;
    private final String jobId;
    private final Sink sink;
    /** Changes taken in while the snapshot is read; null once the snapshot is sent. */
    private List<Runnable> held = new ArrayList<>();

    public JobFollow(JobViews views, String jobId, Sink sink) {
        this.views = views;
        this.jobId = jobId;
        this.sink = sink;
    }

    /** Listens, then sends the snapshot (if the view holds the job) and every change held while it was read. */
    public void start() {
        views.listen(this);
        JobStatus job = views.status(jobId).orElse(null);
        List<TaskSummary> units = views.units(jobId);
        synchronized (this) {
            if (job != null) sink.snapshot(job, units);
            held.forEach(Runnable::run);
            held = null;
        }
    }

    public void stop() {
        views.unlisten(this);
    }

    @Override
    public synchronized void job(JobStatus status) {
        if (!jobId.equals(status.getJobId())) return;
        if (held != null) held.add(() -> sink.job(status));
        else sink.job(status);
    }

    @Override
    public synchronized void task(String unitJobId, TaskSummary unit) {
        if (!jobId.equals(unitJobId)) return;
        if (held != null) held.add(() -> sink.task(unit));
        else sink.task(unit);
    }
}
