package io.flash.ingest.view;

import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A page that follows a job while its units change: what it ends up showing is what the view holds,
 * however the snapshot and the changes interleave (ConsoleTest once saw a running task shown pending
 * for good: a change sent before an older snapshot).
 */
class JobFollowTest {

    private static final String JOB = "job-1";
    private static final int UNITS = 200, ROUNDS = 500;

    /** What a reader rebuilds from what the follow sent: the snapshot replaces all, each change one part. */
    private static final class Reader implements JobFollow.Sink {
        final List<String> kinds = new ArrayList<>();
        JobStatus job;
        final Map<String, TaskState> units = new HashMap<>();

        @Override
        public void snapshot(JobStatus status, List<TaskSummary> all) {
            kinds.add("snapshot");
            job = status;
            units.clear();
            all.forEach(u -> units.put(u.getTaskId(), u.getState()));
        }

        @Override
        public void job(JobStatus status) {
            kinds.add("job");
            job = status;
        }

        @Override
        public void task(TaskSummary unit) {
            kinds.add("task");
            units.put(unit.getTaskId(), unit.getState());
        }
    }

    private static JobStatus job(long updatedAt) {
        return JobStatus.newBuilder().setJobId(JOB).setName(JOB).setOwner("ann").setState(JobState.RUNNING)
                .setTasksTotal(UNITS).setUpdatedAt(updatedAt).build();
    }

    private static TaskSummary unit(int i, TaskState state) {
        String id = JOB + ".t" + i;
        return TaskSummary.newBuilder().setName("t" + i).setTaskId(id).setState(state).build();
    }

    @Test
    void theReaderEndsWithTheViewsStateWhereverTheSnapshotFallsAmongTheChanges() throws Exception {
        int caughtMidway = 0;
        for (int round = 0; round < ROUNDS; round++) {
            JobViews views = new JobViews(3_600_000);
            views.putJob(JOB, job(0));
            for (int i = 0; i < UNITS; i++) views.putTask(JOB + ".t" + i, unit(i, TaskState.DISPATCHED));
            views.putJob("other", JobStatus.newBuilder(job(0)).setJobId("other").build());
            Reader reader = new Reader();
            JobFollow follow = new JobFollow(views, JOB, reader);
            CyclicBarrier go = new CyclicBarrier(2);
            Thread feed = new Thread(() -> {
                await(go);
                for (int i = 0; i < UNITS; i++) {
                    views.putTask(JOB + ".t" + i, unit(i, TaskState.RUNNING));
                    views.putJob(JOB, job(i + 1));
                    views.putTask("other.t" + i, TaskSummary.newBuilder(unit(i, TaskState.RUNNING)).setTaskId("other.t" + i).build());
                }
            });
            feed.start();
            await(go);
            follow.start();
            feed.join();

            assertEquals("snapshot", reader.kinds.get(0), "round " + round + ": the snapshot comes first");
            assertEquals(UNITS, reader.job.getUpdatedAt(), "round " + round + ": the job as the view holds it last");
            assertEquals(UNITS, reader.units.size(), "round " + round + ": only the followed job's units");
            int round_ = round;
            reader.units.forEach((id, state) -> assertEquals(TaskState.RUNNING, state, "round " + round_ + ": " + id + " as the view holds it"));
            if (reader.kinds.size() > 1 && reader.kinds.size() < 2 * UNITS + 1) caughtMidway++;
            follow.stop();
        }
        System.out.printf("JobFollowTest: the snapshot fell among the changes in %d of %d rounds%n", caughtMidway, ROUNDS);
        assertTrue(caughtMidway > 0, "no round took the snapshot while the units changed: the race was not exercised");
    }

    @Test
    void aJobTheViewDoesNotHoldYetGetsNoSnapshotButItsChanges() {
        JobViews views = new JobViews(3_600_000);
        Reader reader = new Reader();
        JobFollow follow = new JobFollow(views, JOB, reader);
        follow.start();
        views.putJob(JOB, job(1));
        views.putTask(JOB + ".t0", unit(0, TaskState.RUNNING));
        follow.stop();
        views.putTask(JOB + ".t0", unit(0, TaskState.SUCCEEDED));
        assertEquals(List.of("job", "task"), reader.kinds);
        assertEquals(TaskState.RUNNING, reader.units.get(JOB + ".t0"), "nothing after stop");
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
