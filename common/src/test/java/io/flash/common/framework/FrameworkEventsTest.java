package io.flash.common.framework;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** The framework side of the protocol that every kind of framework shares. */
class FrameworkEventsTest {

    private final FrameworkEvents events = new FrameworkEvents("slurm-lab", 2);
    private final TaskReady ready = ready("j", task("a"), 1);

    private AttemptEvent report(AttemptState state, Integer exit, FailureClass cause) {
        return AttemptEvent.newBuilder().setNodeId("c1").setJobId("j").setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                .setState(state).setExitCode(exit).setFailureClass(cause).setReason(cause == null ? null : "exit " + exit)
                .setAt(7L).build();
    }

    @Test
    void anEndIsReportedAsTheNodeSaysUnlessTheAttemptWasFencedOrPreempted() {
        TaskEvent failed = events.reported(ready, "c1", report(AttemptState.FAILED, 3, FailureClass.USER), null, null);
        assertEquals(TaskEventType.FAILED, failed.getType());
        assertEquals(FailureClass.USER, failed.getFailureClass());
        assertEquals(3, failed.getExitCode());
        assertEquals("j", failed.getJobId(), "keyed and named by its job");
        assertEquals("slurm-lab", failed.getFrameworkId());
        assertEquals("c1", failed.getNodeId());

        TaskEvent fenced = events.reported(ready, "c1", report(AttemptState.CANCELLED, 137, FailureClass.CANCELLED), 5L, null);
        assertEquals(TaskEventType.LOST, fenced.getType(), "stopped because it was moved: not the user's");
        assertEquals(FailureClass.FRAMEWORK_LOST, fenced.getFailureClass());
        assertEquals("stopped: the dispatcher had moved it while slurm-lab shard 2 was silent", fenced.getReason());

        TaskEvent preempted = events.reported(ready, "c1", report(AttemptState.CANCELLED, 137, FailureClass.CANCELLED), null, "k.b.1");
        assertEquals(TaskEventType.FAILED, preempted.getType());
        assertEquals(FailureClass.PREEMPTED, preempted.getFailureClass(), "retried without the user's budget");

        TaskEvent succeeded = events.reported(ready, "c1", report(AttemptState.SUCCEEDED, 0, null), 5L, "k.b.1");
        assertEquals(TaskEventType.SUCCEEDED, succeeded.getType(), "a success stands, fenced or not: its outputs are written");
        assertEquals(TaskEventType.STARTED, events.reported(ready, "c1", report(AttemptState.STARTED, null, null), 5L, null).getType());
    }

    @Test
    void aReasonIsToldOnceUntilItChangesInWords() {
        HoldNotices notices = new HoldNotices();
        assertTrue(notices.due("a.1", "slurm-lab shard 2: 3 nodes: 3 lack free cpu"));
        assertFalse(notices.due("a.1", "slurm-lab shard 2: 3 nodes: 3 lack free cpu"));
        assertFalse(notices.due("a.1", "slurm-lab shard 2: 4 nodes: 4 lack free cpu"), "a count moved: no news");
        assertTrue(notices.due("a.1", "slurm-lab shard 2: queue batch is at its quota"));
        assertTrue(notices.told("a.1"));
        notices.forget("a.1");
        assertFalse(notices.told("a.1"));
        assertTrue(notices.due("a.1", "slurm-lab shard 2: queue batch is at its quota"), "held again after it moved");
    }

    @Test
    void aHeartbeatSumsItsPlacesAndNamesTheLargest() {
        Capacity big = new Capacity(32.0, 128L << 30, 1L << 40, 0), bigFree = new Capacity(8.0, 16L << 30, 1L << 40, 0);
        Capacity small = new Capacity(4.0, 8L << 30, 1L << 39, 1), smallFree = small;
        FrameworkHeartbeat hb = FrameworkHeartbeats.of("slurm-lab", 2, 500, List.of(
                new FrameworkHeartbeats.Offer(big, bigFree, DiskType.HDD, false, Map.of("partition", "long")),
                new FrameworkHeartbeats.Offer(small, smallFree, DiskType.SSD, true, Map.of("partition", "gpu"))),
                List.of(TaskDispatch.newBuilder().setFrameworkId("slurm-lab").setShard(2).setReady(ready).setDispatchedAt(1L).build()), 9L);
        assertEquals(2, hb.getNodes());
        assertEquals(36.0, hb.getTotal().getCpu());
        assertEquals(12.0, hb.getFree().getCpu());
        assertEquals(8.0, hb.getLargestNodeFree().getCpu(), "the most one place could take now");
        assertEquals(128L << 30, hb.getLargestNodeTotal().getMemoryBytes(), "the most one place could ever take");
        assertEquals(List.of(DiskType.SSD, DiskType.HDD), hb.getDiskTypes());
        assertTrue(hb.getNetwork());
        assertEquals(List.of("partition=gpu", "partition=long"), hb.getNodeLabels());
        assertEquals(1, hb.getQueued());
        assertEquals(0.5, hb.getQueuedDemand().getCpu());
        assertEquals(500, hb.getAcceptLimit());
        assertEquals("slurm-lab", hb.getFrameworkId());
    }

    @Test
    void theQueueIsGroupedBySizeAndWhetherItMayUseSpotLargestGroupFirst() {
        TaskReady never = TaskReady.newBuilder(ready).setTask(TaskDefinition.newBuilder(ready.getTask()).setSpotAllowed(false).build()).build();
        TaskReady big = TaskReady.newBuilder(ready).setTask(TaskDefinition.newBuilder(ready.getTask())
                .setResources(new Capacity(4.0, 8L << 30, 0L, 0)).build()).build();
        List<TaskDispatch> queue = java.util.stream.Stream.of(ready, never, big, ready, ready, big)
                .map(r -> TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r).setDispatchedAt(1L).build()).toList();
        List<QueuedShape> shapes = FrameworkHeartbeats.of("ecs", 0, 1000, List.of(), queue, 9L).getQueuedShapes();
        assertEquals(List.of(3, 2, 1), shapes.stream().map(QueuedShape::getCount).toList());
        assertEquals(ready.getTask().getResources(), shapes.get(0).getNeed());
        assertEquals(4.0, shapes.get(1).getNeed().getCpu());
        assertFalse(shapes.get(2).getSpotAllowed(), "the same size, but on-demand only, is its own group");
    }
}
