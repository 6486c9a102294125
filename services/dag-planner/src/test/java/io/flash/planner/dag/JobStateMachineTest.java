package io.flash.planner.dag;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.*;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class JobStateMachineTest {

    private final JobStateMachine machine = new JobStateMachine(new RetryPolicy(2));

    private static TaskEvent ended(TaskReady ready, TaskEventType type, FailureClass cause, Integer exitCode) {
        TaskEvent e = event(ready, type);
        e.setFailureClass(cause);
        e.setExitCode(exitCode);
        return e;
    }

    @Test
    void diamondRunsEachTaskAfterItsDependencies() {
        Transition t = machine.start(job("j", task("a"), task("b", "a"), task("c", "a"), task("d", "b", "c")), 1L);
        assertEquals(List.of("j.a"), t.ready().stream().map(TaskReady::getTaskId).toList());
        PlannedJob job = t.job();

        t = machine.apply(job, ended(t.ready().get(0), TaskEventType.SUCCEEDED, null, 0), 2L);
        assertEquals(List.of("j.b", "j.c"), t.ready().stream().map(TaskReady::getTaskId).toList());
        assertEquals(List.of("ecs"), t.ready().get(0).getDependencyFrameworks(), "locality: where a ran");
        TaskReady b = t.ready().get(0), c = t.ready().get(1);

        t = machine.apply(job, ended(b, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertTrue(t.ready().isEmpty(), "d still waits for c");
        t = machine.apply(job, ended(c, TaskEventType.SUCCEEDED, null, 0), 4L);
        assertEquals(List.of("j.d"), t.ready().stream().map(TaskReady::getTaskId).toList());
        t = machine.apply(job, ended(t.ready().get(0), TaskEventType.SUCCEEDED, null, 0), 5L);

        assertNotNull(t.result());
        assertEquals(JobState.SUCCEEDED, t.result().getState());
        assertEquals(0, t.result().getExitCode());
        assertEquals(JobState.SUCCEEDED, t.status().getState());
        assertEquals(4, t.status().getTasksSucceeded());
    }

    @Test
    void userFailureFailsTheJobWithExitCodeAndSkipsDependents() {
        Transition t = machine.start(job("j", task("a"), task("b", "a")), 1L);
        t = machine.apply(t.job(), ended(t.ready().get(0), TaskEventType.FAILED, FailureClass.USER, 3), 2L);
        JobResult result = t.result();
        assertEquals(JobState.FAILED, result.getState());
        assertEquals(3, result.getExitCode());
        assertEquals("task a failed with exit code 3; 1 of 1 attempts used", result.getReason());
        assertEquals(TaskState.SKIPPED, result.getTasks().get(1).getState());
    }

    @Test
    void userFailureIsRetriedWithinTheTasksBudget() {
        TaskDefinition flaky = task("a");
        flaky.setMaxAttempts(2);
        Transition t = machine.start(job("j", flaky), 1L);
        t = machine.apply(t.job(), ended(t.ready().get(0), TaskEventType.FAILED, FailureClass.USER, 1), 2L);
        assertNull(t.result());
        TaskReady second = t.ready().get(0);
        assertEquals(2, second.getAttempt());
        assertEquals("j.a.2", second.getAttemptId());
        t = machine.apply(t.job(), ended(second, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertEquals(JobState.SUCCEEDED, t.result().getState());
        assertEquals(2, t.result().getTasks().get(0).getAttempts());
    }

    @Test
    void lostNodesDoNotSpendTheUsersBudget() {
        Transition t = machine.start(job("j", task("a")), 1L); // maxAttempts 1
        PlannedJob job = t.job();
        TaskReady attempt = t.ready().get(0);
        for (int lost = 1; lost <= 2; lost++) {
            t = machine.apply(job, ended(attempt, TaskEventType.LOST, FailureClass.NODE_LOST, null), 2L);
            assertNull(t.result(), "infrastructure retry " + lost);
            attempt = t.ready().get(0);
        }
        t = machine.apply(job, ended(attempt, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertEquals(JobState.SUCCEEDED, t.result().getState());
        assertEquals(0, t.result().getTasks().get(0).getUserFailures());
        assertEquals(2, t.result().getTasks().get(0).getInfraFailures());
    }

    @Test
    void infrastructureBudgetRunsOut() {
        Transition t = machine.start(job("j", task("a")), 1L);
        for (int i = 0; i < 3; i++) {
            t = machine.apply(t.job(), ended(t.ready().get(0), TaskEventType.LOST, FailureClass.NODE_LOST, null), 2L);
        }
        assertEquals(JobState.FAILED, t.result().getState());
        assertTrue(t.result().getReason().contains("infrastructure retries exhausted"), t.result().getReason());
    }

    @Test
    void eventsOfOldAttemptsChangeNothing() {
        TaskDefinition flaky = task("a");
        flaky.setMaxAttempts(2);
        Transition t = machine.start(job("j", flaky), 1L);
        PlannedJob job = t.job();
        TaskReady first = t.ready().get(0);
        machine.apply(job, ended(first, TaskEventType.FAILED, FailureClass.USER, 1), 2L);
        Transition late = machine.apply(job, ended(first, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertFalse(late.changed(), "a late success of attempt 1 must not complete attempt 2's task");
        Transition duplicate = machine.apply(job, ended(first, TaskEventType.FAILED, FailureClass.USER, 1), 3L);
        assertFalse(duplicate.changed());
    }

    @Test
    void heldTasksExplainThemselvesInTheStatus() {
        Transition t = machine.start(job("j", task("a")), 1L);
        TaskEvent held = event(t.ready().get(0), TaskEventType.HELD);
        held.setReason("1 framework: ecs has 0 of 2 cpu free");
        t = machine.apply(t.job(), held, 2L);
        assertEquals("task a waits: 1 framework: ecs has 0 of 2 cpu free", t.status().getMessage());
    }

    @Test
    void continueModeRunsIndependentBranches() {
        JobAccepted spec = job("j", task("a"), task("b", "a"), task("c"));
        spec.setFailureMode(FailureMode.CONTINUE);
        Transition t = machine.start(spec, 1L);
        TaskReady a = t.ready().get(0), c = t.ready().get(1);
        t = machine.apply(t.job(), ended(a, TaskEventType.FAILED, FailureClass.USER, 2), 2L);
        assertNull(t.result(), "c is still running");
        t = machine.apply(t.job(), ended(c, TaskEventType.SUCCEEDED, null, 0), 3L);
        assertEquals(JobState.FAILED, t.result().getState());
        assertEquals(List.of(TaskState.FAILED, TaskState.SKIPPED, TaskState.SUCCEEDED),
                t.result().getTasks().stream().map(TaskSummary::getState).toList());
    }

    /** Property: on random DAGs, every task runs exactly once, and only after all its dependencies. */
    @Test
    void randomDagsRunEveryTaskOnceAfterItsDependencies() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(30);
            List<TaskDefinition> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                List<String> deps = new ArrayList<>();
                for (int j = 0; j < i; j++) if (random.nextInt(4) == 0) deps.add("t" + j);
                tasks.add(task("t" + i, deps.toArray(String[]::new)));
            }
            Transition t = machine.start(job("j" + round, tasks.toArray(TaskDefinition[]::new)), 0L);
            PlannedJob job = t.job();
            Deque<TaskReady> running = new ArrayDeque<>(t.ready());
            Set<String> done = new HashSet<>();
            JobResult result = null;
            while (!running.isEmpty()) {
                List<TaskReady> list = new ArrayList<>(running);
                TaskReady next = list.get(random.nextInt(list.size()));
                running.remove(next);
                String name = next.getTask().getName();
                assertTrue(done.containsAll(next.getTask().getDependsOn()), name + " ran before its dependencies");
                assertTrue(done.add(name), name + " ran twice");
                t = machine.apply(job, ended(next, TaskEventType.SUCCEEDED, null, 0), 1L);
                running.addAll(t.ready());
                if (t.result() != null) result = t.result();
            }
            assertEquals(n, done.size(), "every task ran");
            assertNotNull(result);
            assertEquals(JobState.SUCCEEDED, result.getState());
        }
    }
}
