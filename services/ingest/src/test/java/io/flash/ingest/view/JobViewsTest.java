package io.flash.ingest.view;

import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class JobViewsTest {

    private static final long WEEK = 7 * 24 * 3600_000L;
    private final JobViews views = new JobViews(WEEK);

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
        assertEquals(List.of("b", "a"), views.find(new JobViews.Filter("ann", JobState.SUCCEEDED, null, null, null), 0, 10).jobs().stream().map(JobStatus::getJobId).toList());
        assertEquals(List.of("d", "b", "c", "a"), views.find(new JobViews.Filter(null, null, null, null, null), 0, 10).jobs().stream().map(JobStatus::getJobId).toList());
    }

    @Test
    void aTombstoneRemovesTheJob() {
        views.putJob("a", status("a", "ann", JobState.RUNNING, 1));
        views.putJob("a", null);
        assertTrue(views.job("a", 0, 10).isEmpty());
        assertFalse(views.jobsAfter("").iterator().hasNext());
        assertEquals(0, views.jobCount());
    }

    @Test
    void jobsAfterAnIdComeInIdOrderWithTheirLatestStatus() {
        views.putJob("c", status("c", "ann", JobState.RUNNING, 1));
        views.putJob("a", status("a", "ann", JobState.RUNNING, 2));
        views.putJob("b", status("b", "ann", JobState.RUNNING, 3));
        views.putJob("a", status("a", "ann", JobState.SUCCEEDED, 4));
        views.putJob("b", null);
        List<JobStatus> all = new ArrayList<>();
        views.jobsAfter("").forEach(all::add);
        assertEquals(List.of("a", "c"), all.stream().map(JobStatus::getJobId).toList());
        assertEquals(JobState.SUCCEEDED, all.get(0).getState());
        List<String> afterA = new ArrayList<>();
        views.jobsAfter("a").forEach(j -> afterA.add(j.getJobId()));
        assertEquals(List.of("c"), afterA);
    }

    @Test
    void aListIsFilteredByOwnerStateNamePrefixAndTimeThenPagedWithItsTotal() {
        for (int i = 0; i < 5; i++) {
            JobStatus s = status("job-" + i, i % 2 == 0 ? "ann" : "bob", JobState.RUNNING, 100 + i);
            s.setName(i < 3 ? "Align-" + i : "call-" + i);
            s.setAcceptedAt(1000L * i);
            views.putJob(s.getJobId(), s);
        }
        JobViews.JobList anns = views.find(new JobViews.Filter("ann", null, "align", null, null), 0, 10);
        assertEquals(List.of("job-2", "job-0"), anns.jobs().stream().map(JobStatus::getJobId).toList(), "newest change first");
        assertEquals(2, anns.total());
        JobViews.JobList window = views.find(new JobViews.Filter(null, JobState.RUNNING, null, 1000L, 3000L), 1, 1);
        assertEquals(List.of("job-2"), window.jobs().stream().map(JobStatus::getJobId).toList());
        assertEquals(3, window.total(), "jobs 1, 2 and 3 were accepted in the window");
    }

    @Test
    void listenersHearEveryJobAndTaskChange() {
        List<String> heard = new ArrayList<>();
        JobViews.Listener listener = new JobViews.Listener() {
            @Override
            public void job(JobStatus status) {
                heard.add("job " + status.getJobId());
            }

            @Override
            public void task(String jobId, TaskSummary summary) {
                heard.add("task " + jobId + " " + summary.getTaskId());
            }
        };
        views.listen(listener);
        views.putJob("job-1", status("job-1", "ann", JobState.RUNNING, 1));
        views.putTask("job-1.a", unit("job-1.a"));
        views.unlisten(listener);
        views.putTask("job-1.b", unit("job-1.b"));
        assertEquals(List.of("job job-1", "task job-1 job-1.a"), heard);
    }

    private void finishedJobOf(int shards, long finishedAt) {
        views.putJob("job-1", status("job-1", "ann", JobState.RUNNING, 1));
        for (int i = 0; i < shards; i++) {
            TaskSummary shard = unit("job-1.scan.s" + i);
            shard.setState(i % 4 == 0 ? TaskState.FAILED : TaskState.SUCCEEDED);
            shard.setNodeId("node-" + i);
            views.putTask(shard.getTaskId(), shard);
        }
        JobStatus done = status("job-1", "ann", JobState.FAILED, finishedAt);
        done.setFinishedAt(finishedAt);
        views.putJob("job-1", done);
    }

    @Test
    void aSettledFinishedJobReadsBackTheSameUnitsInTheSameOrder() {
        finishedJobOf(25, 1_000);
        List<TaskSummary> before = views.units("job-1");
        JobViews.Page secondPageBefore = views.job("job-1", 1, 10).orElseThrow();

        views.settle(1_000 + JobViews.PACK_AFTER_MS - 1);
        views.settle(1_000 + JobViews.PACK_AFTER_MS);

        assertEquals(before, views.units("job-1"));
        JobViews.Page secondPage = views.job("job-1", 1, 10).orElseThrow();
        assertEquals(secondPageBefore.tasks(), secondPage.tasks());
        assertEquals(25, secondPage.totalTasks());
        assertEquals(List.of("job-1.scan.s20", "job-1.scan.s21", "job-1.scan.s22", "job-1.scan.s23", "job-1.scan.s24"),
                views.job("job-1", 2, 10).orElseThrow().tasks().stream().map(TaskSummary::getTaskId).toList());
        assertTrue(views.job("job-1", 3, 10).orElseThrow().tasks().isEmpty());
        assertEquals(18, views.unitsIn(TaskState.SUCCEEDED));
        assertEquals(7, views.unitsIn(TaskState.FAILED));
    }

    @Test
    void aUnitThatChangesAfterItsJobWasSettledIsTakenIn() {
        finishedJobOf(5, 1_000);
        views.settle(1_000 + JobViews.PACK_AFTER_MS);
        TaskSummary late = unit("job-1.scan.s0");
        late.setState(TaskState.SUCCEEDED);
        views.putTask(late.getTaskId(), late);

        assertEquals(TaskState.SUCCEEDED, views.units("job-1").get(0).getState());
        assertEquals(5, views.units("job-1").size());
        assertEquals(4, views.unitsIn(TaskState.SUCCEEDED), "s0 failed, then succeeded; s4 failed");
        assertEquals(1, views.unitsIn(TaskState.FAILED));
    }

    @Test
    void aJobFinishedLongerAgoThanTheViewKeepsUnitsKeepsItsStatusAndSaysItsUnitsAgedOut() {
        finishedJobOf(8, 1_000);
        views.putJob("job-2", status("job-2", "bob", JobState.RUNNING, 1));
        views.putTask("job-2.a", unit("job-2.a"));
        views.settle(1_000 + WEEK - 1);
        assertFalse(views.job("job-1", 0, 10).orElseThrow().unitsAgedOut());

        views.settle(1_000 + WEEK);

        JobViews.Page page = views.job("job-1", 0, 10).orElseThrow();
        assertTrue(page.unitsAgedOut());
        assertEquals(JobState.FAILED, page.job().getState(), "the job's id still resolves, with its final status");
        assertTrue(page.tasks().isEmpty());
        assertEquals(0, views.unitsIn(TaskState.SUCCEEDED) + views.unitsIn(TaskState.FAILED));
        assertEquals(1, views.unitsIn(TaskState.READY), "a running job keeps its units");
        views.putTask("job-1.scan.s3", unit("job-1.scan.s3"));
        assertTrue(views.units("job-1").isEmpty(), "a late record of an aged-out job is not taken back in");
    }
}
