package io.flash.ingest.view;

import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class JobViewsTest {

    private final JobViews views = new JobViews();

    private static JobStatus status(String id, String owner, JobState state, long updatedAt) {
        return JobStatus.newBuilder().setJobId(id).setName(id).setOwner(owner).setState(state).setTasksTotal(1).setUpdatedAt(updatedAt).build();
    }

    private static TaskSummary unit(String taskId) {
        return TaskSummary.newBuilder().setName(taskId).setTaskId(taskId).setState(TaskState.READY).build();
    }

    @Test
    void pagesAJobsTasksWithShardsInNumericOrder() {
        views.putJob("job-1", status("job-1", "ann", JobState.RUNNING, 1));
        for (int i = 0; i < 12; i++) views.putTask("job-1.scan.s" + i, unit("job-1.scan.s" + i));
        views.putTask("job-1.gather", unit("job-1.gather"));

        JobViews.Page first = views.job("job-1", 0, 5).orElseThrow();
        assertEquals(13, first.totalTasks());
        assertEquals(List.of("job-1.gather", "job-1.scan.s0", "job-1.scan.s1", "job-1.scan.s2", "job-1.scan.s3"),
                first.tasks().stream().map(TaskSummary::getTaskId).toList());
        JobViews.Page last = views.job("job-1", 2, 5).orElseThrow();
        assertEquals(List.of("job-1.scan.s9", "job-1.scan.s10", "job-1.scan.s11"),
                last.tasks().stream().map(TaskSummary::getTaskId).toList());
    }

    @Test
    void findsJobsByOwnerAndStateNewestFirst() {
        views.putJob("a", status("a", "ann", JobState.SUCCEEDED, 1));
        views.putJob("b", status("b", "ann", JobState.SUCCEEDED, 3));
        views.putJob("c", status("c", "bob", JobState.SUCCEEDED, 2));
        views.putJob("d", status("d", "ann", JobState.FAILED, 4));
        assertEquals(List.of("b", "a"), views.find("ann", JobState.SUCCEEDED, 10).stream().map(JobStatus::getJobId).toList());
        assertEquals(List.of("d", "b", "c", "a"), views.find(null, null, 10).stream().map(JobStatus::getJobId).toList());
    }

    @Test
    void aTombstoneRemovesTheJob() {
        views.putJob("a", status("a", "ann", JobState.RUNNING, 1));
        views.putJob("a", null);
        assertTrue(views.job("a", 0, 10).isEmpty());
    }
}
