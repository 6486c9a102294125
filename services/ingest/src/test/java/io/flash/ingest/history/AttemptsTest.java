package io.flash.ingest.history;

import io.flash.schema.FailureClass;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class AttemptsTest {

    private static TaskEvent event(String attemptId, TaskEventType type, long at) {
        String unit = attemptId.substring(0, attemptId.lastIndexOf('.'));
        return TaskEvent.newBuilder().setJobId("j").setTaskId(unit).setAttemptId(attemptId).setType(type).setAt(at).build();
    }

    @Test
    void eachAttemptGathersWhereAndWhenItRanAndHowItEnded() {
        TaskEvent dispatched = event("j.align.s3.1", TaskEventType.DISPATCHED, 10);
        dispatched.setFrameworkId("ecs");
        dispatched.setShard(1);
        TaskEvent placed = event("j.align.s3.1", TaskEventType.PLACED, 12);
        placed.setNodeId("n1");
        TaskEvent failed = event("j.align.s3.1", TaskEventType.FAILED, 30);
        failed.setExitCode(137);
        failed.setFailureClass(FailureClass.OOM_KILLED);
        failed.setReason("used more memory than it asked for");
        failed.setPeakMemoryBytes(2048L);
        TaskEvent retry = event("j.align.s3.2", TaskEventType.STARTED, 40);
        retry.setNodeId("n2");
        retry.setFrameworkId("ecs");

        List<Attempts.Attempt> all = Attempts.assemble("j", List.of(dispatched, placed, event("j.align.s3.1", TaskEventType.STARTED, 13),
                failed, retry));

        assertEquals(2, all.size());
        Attempts.Attempt first = all.get(0);
        assertEquals("align", first.task());
        assertEquals(3, first.shard());
        assertEquals(1, first.number());
        assertEquals("ecs", first.frameworkId());
        assertEquals(1, first.frameworkShard());
        assertEquals("n1", first.nodeId());
        assertEquals(10, first.firstSeenAt());
        assertEquals(12L, first.placedAt());
        assertEquals(13L, first.startedAt());
        assertEquals(30L, first.endedAt());
        assertEquals("FAILED", first.outcome());
        assertEquals(137, first.exitCode());
        assertEquals("OOM_KILLED", first.failureClass());
        assertEquals(2048L, first.peakMemoryBytes());
        Attempts.Attempt second = all.get(1);
        assertEquals(2, second.number());
        assertEquals("RUNNING", second.outcome());
        assertNull(second.endedAt());
    }

    @Test
    void anEndedAttemptKeepsItsOutcomeWhateverArrivesLate() {
        TaskEvent lost = event("j.a.1", TaskEventType.LOST, 20);
        lost.setFailureClass(FailureClass.NODE_LOST);
        List<Attempts.Attempt> all = Attempts.assemble("j", List.of(event("j.a.1", TaskEventType.STARTED, 5), lost,
                event("j.a.1", TaskEventType.SUCCEEDED, 25), event("j.a.1", TaskEventType.STARTED, 26)));
        assertEquals(1, all.size());
        assertEquals("LOST", all.get(0).outcome());
        assertEquals(20L, all.get(0).endedAt());
        assertNull(all.get(0).shard(), "a task that is not scattered");
    }

    @Test
    void eventsOfOtherJobsAndWithoutAnAttemptAreLeftOut() {
        TaskEvent other = event("k.a.1", TaskEventType.STARTED, 5);
        other.setJobId("k");
        TaskEvent noAttempt = event("j.a.1", TaskEventType.HELD, 5);
        noAttempt.setAttemptId("");
        assertTrue(Attempts.assemble("j", List.of(other, noAttempt)).isEmpty());
    }
}
