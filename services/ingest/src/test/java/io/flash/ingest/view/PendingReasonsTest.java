package io.flash.ingest.view;

import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Why a job's tasks wait, in words, from the status view and the frameworks' heartbeats. */
class PendingReasonsTest {

    private static TaskSummary unit(String name, TaskState state, String reason) {
        return TaskSummary.newBuilder().setName(name).setTaskId("job-1." + name).setState(state).setReason(reason).build();
    }

    private static FrameworkHeartbeat ecs(long freeMemory, int queued, long sentAt) {
        Capacity free = new Capacity(2.0, freeMemory, 0L, 0);
        return FrameworkHeartbeat.newBuilder().setFrameworkId("ecs").setShard(0).setNodes(1).setTotal(new Capacity(4.0, 8L << 30, 0L, 0))
                .setFree(free).setLargestNodeFree(free).setLargestNodeTotal(new Capacity(4.0, 8L << 30, 0L, 0)).setQueued(queued)
                .setDiskTypes(List.of(DiskType.HDD)).setSentAt(sentAt).build();
    }

    @Test
    void onlyWaitingTasksAreListedEachWithTheLastReasonGiven() {
        List<PendingReasons.Waiting> waiting = PendingReasons.of(List.of(
                unit("done", TaskState.SUCCEEDED, null),
                unit("running", TaskState.RUNNING, null),
                unit("held", TaskState.READY, "no framework has a node with disk type ssd (ecs: hdd)"),
                unit("after", TaskState.PENDING, null)), List.of(ecs(4L << 30, 0, 9_000)), 10_000);
        assertEquals(List.of("held", "after"), waiting.stream().map(PendingReasons.Waiting::name).toList());
        assertEquals("no framework has a node with disk type ssd (ecs: hdd)", waiting.get(0).why());
        assertEquals("waits for the tasks it depends on to succeed", waiting.get(1).why());
        assertEquals(List.of("ecs shard 0: 1 node, the largest free has 2.0 cpu, 4.0Gi, disks [hdd]; heard 1 s ago"), waiting.get(0).frameworks());
    }

    @Test
    void aShardThatLeftIsNotShownAsRoom() {
        FrameworkHeartbeat left = ecs(4L << 30, 0, 5_000);
        left.setFrameworkId("sim");
        left.setLeaving(true);
        PendingReasons.Waiting w = PendingReasons.of(List.of(unit("held", TaskState.READY, "no room")),
                List.of(ecs(4L << 30, 0, 9_000), left), 10_000).get(0);
        assertEquals(List.of("ecs shard 0: 1 node, the largest free has 2.0 cpu, 4.0Gi, disks [hdd]; heard 1 s ago",
                "sim shard 0: left 5 s ago, gets no new work"), w.frameworks());
    }

    @Test
    void aQueuedTaskSaysWhereItWaitsHowManyWaitThereAndWhatItLacks() {
        TaskSummary queued = unit("big", TaskState.DISPATCHED, null);
        queued.setFrameworkId("ecs");
        queued.setShard(0);
        queued.setMemoryBytes(6L << 30);
        PendingReasons.Waiting w = PendingReasons.of(List.of(queued), List.of(ecs(4L << 30, 7, 10_000)), 10_000).get(0);
        assertEquals("queued in ecs shard 0 (7 waiting there): no node has room for it yet", w.why());
        assertTrue(w.frameworks().get(0).endsWith("too little memory: it asks 6.0Gi"), w.frameworks().toString());
        assertNull(w.position(), "a shard that lists no order gives no position");
    }

    @Test
    void aQueuedTaskTheShardListsHasItsPositionAndOneBehindTheListedHeadIsToldHowManyAreAhead() {
        TaskSummary queued = unit("align", TaskState.DISPATCHED, "ecs shard 0: 1 node: 1 lack free cpu");
        queued.setFrameworkId("ecs");
        queued.setShard(0);
        queued.setAttemptId("job-1.align.1");
        FrameworkHeartbeat hb = ecs(4L << 30, 3, 10_000);
        hb.setQueueHead(List.of("job-2.x.1", "job-1.align.1", "job-3.y.1"));
        PendingReasons.Waiting w = PendingReasons.of(List.of(queued), List.of(hb), 10_000).get(0);
        assertEquals(2, w.position());
        assertEquals("queued in ecs shard 0, position 2 of 3 waiting there: ecs shard 0: 1 node: 1 lack free cpu", w.why());

        hb.setQueued(250);
        hb.setQueueHead(List.of("job-2.x.1", "job-3.y.1"));
        w = PendingReasons.of(List.of(queued), List.of(hb), 10_000).get(0);
        assertNull(w.position());
        assertTrue(w.why().startsWith("queued in ecs shard 0, behind at least 2 of the 250 waiting there:"), w.why());
    }
}
