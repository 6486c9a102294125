package io.flash.dispatcher.core;

import io.flash.common.state.MemoryTable;
import io.flash.common.state.Table;
import io.flash.dispatcher.core.selection.FrameworkSelector;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.*;
import java.util.function.BiConsumer;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** Level 1's decisions in memory: the core over plain maps, no Kafka. */
class DispatcherTest {

    /** The ports as maps and lists. */
    static final class Memory implements DispatchStore, DispatchOutbox {
        final MemoryTable<FrameworkHeartbeat> shards = new MemoryTable<>();
        final MemoryTable<HeldTask> held = new MemoryTable<>();
        final MemoryTable<TaskDispatch> inflight = new MemoryTable<>();
        final List<TaskDispatch> dispatched = new ArrayList<>();
        final List<TaskEvent> events = new ArrayList<>();
        final Map<String, Integer> counts = new TreeMap<>();

        void heartbeat(FrameworkHeartbeat hb) {
            shards.put(hb.getFrameworkId() + "/" + hb.getShard(), hb);
        }

        List<TaskEventType> types() {
            return events.stream().map(TaskEvent::getType).toList();
        }

        @Override public MemoryTable<FrameworkHeartbeat> frameworks() { return shards; }
        @Override public MemoryTable<HeldTask> heldTasks() { return held; }
        @Override public MemoryTable<TaskDispatch> inflightTasks() { return inflight; }
        @Override public void dispatch(TaskDispatch dispatch) { dispatched.add(dispatch); }
        @Override public void event(TaskEvent event) { events.add(event); }
        @Override public void counted(String outcome) { counts.merge(outcome, 1, Integer::sum); }
    }

    private final Memory memory = new Memory();
    private final Dispatcher dispatcher = new Dispatcher(new FrameworkSelector(15_000), memory, memory, 10_000, 5_000);

    private static TaskEvent report(TaskReady r, TaskEventType type, long at) {
        return TaskEvent.newBuilder().setJobId(r.getJobId()).setTaskId(r.getTaskId()).setAttemptId(r.getAttemptId())
                .setType(type).setFrameworkId("ecs").setShard(0).setAt(at).build();
    }

    @Test
    void anAttemptGoesToTheShardThatHasRoomAndIsRememberedUntilPlaced() {
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        TaskReady r = ready("j", task("a"), 1);
        dispatcher.onReady(r, 1_000);
        assertEquals("ecs", memory.dispatched.get(0).getFrameworkId());
        assertEquals(List.of(), memory.types(), "no event: the shard's placement tells the dispatch");
        assertTrue(memory.inflight.containsKey("j.a.1"));
        dispatcher.onEvent(report(r, TaskEventType.PLACED, 1_200));
        assertTrue(memory.inflight.isEmpty(), "placed: a node holds it, it is never moved");
        assertEquals(Map.of("dispatched", 1), memory.counts);
    }

    @Test
    void whatFitsNowhereIsHeldOnceAndSentWhenRoomAppears() {
        TaskReady r = ready("j", task("a"), 1);
        dispatcher.onReady(r, 1_000);
        assertEquals("no framework has sent a heartbeat yet", memory.events.get(0).getReason());
        dispatcher.round(1_500);
        assertEquals(1, memory.events.size(), "the same reason is not said twice");
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 2_000));
        dispatcher.round(2_000);
        assertEquals(List.of(TaskEventType.HELD), memory.types());
        assertEquals("j.a.1", memory.dispatched.get(0).getReady().getAttemptId());
        assertTrue(memory.held.isEmpty());
    }

    @Test
    void aTaskNoFrameworkCouldEverRunFailsAsUnschedulable() {
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        TaskDefinition huge = task("a");
        huge.getResources().setCpu(64.0);
        dispatcher.onReady(ready("j", huge, 1), 1_000);
        TaskEvent failed = memory.events.get(0);
        assertEquals(FailureClass.UNSCHEDULABLE, failed.getFailureClass());
        assertTrue(failed.getReason().startsWith("no framework can ever run it: "), failed.getReason());
    }

    @Test
    void aCancelSettlesAHeldAttemptHereAndFollowsADispatchedOneToItsShard() {
        TaskReady held = ready("j", task("a"), 1);
        dispatcher.onReady(held, 1_000);
        dispatcher.onReady(TaskReady.newBuilder(held).setCancel(true).build(), 1_100);
        assertEquals(TaskEventType.CANCELLED, memory.events.get(1).getType());
        assertTrue(memory.held.isEmpty());

        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 2_000));
        TaskReady sent = ready("j", task("b"), 1);
        dispatcher.onReady(sent, 2_000);
        dispatcher.onReady(TaskReady.newBuilder(sent).setCancel(true).build(), 2_100);
        TaskDispatch cancel = memory.dispatched.get(memory.dispatched.size() - 1);
        assertTrue(cancel.getReady().getCancel());
        assertEquals("ecs", cancel.getFrameworkId());
    }

    /** Silent past timeout + grace while another framework keeps heartbeating: fenced there, reported lost. */
    @Test
    void unplacedAttemptsOfASilentShardAreFencedAndReportedLost() {
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        TaskReady stranded = ready("j", task("a"), 1), placed = ready("j", task("b"), 1);
        dispatcher.onReady(stranded, 1_000);
        dispatcher.onReady(placed, 1_000);
        dispatcher.onEvent(report(placed, TaskEventType.PLACED, 1_100));
        for (long now = 2_000; now <= 30_000; now += 1_000) {
            memory.heartbeat(framework("hpc", 0, 1, 64 * MIB, now)); // the dispatcher is not blind
            dispatcher.round(now);
        }
        TaskDispatch fence = memory.dispatched.get(memory.dispatched.size() - 1);
        assertTrue(fence.getReady().getFence(), "the old dispatch is fenced on its shard");
        assertEquals("j.a.1", fence.getReady().getAttemptId());
        TaskEvent lost = memory.events.get(memory.events.size() - 1);
        assertEquals(FailureClass.FRAMEWORK_LOST, lost.getFailureClass());
        assertEquals("j.a.1", lost.getAttemptId());
        assertEquals(1, memory.events.stream().filter(e -> e.getType() == TaskEventType.LOST).count(), "the placed one stays");
        assertEquals(1, memory.counts.get("moved-from-silent-framework"));
    }

    @Test
    void withNoHeartbeatArrivingTheDispatcherIsBlindAndMovesNothing() {
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        dispatcher.onReady(ready("j", task("a"), 1), 1_000);
        for (long now = 2_000; now <= 60_000; now += 1_000) dispatcher.round(now);
        assertFalse(memory.types().contains(TaskEventType.LOST));
        assertEquals(1, memory.inflight.size());
    }

    /** Counts the held attempts read from the store, one by one or all at once. */
    private int heldReads;

    private DispatchStore countingReads(Memory m) {
        Table<HeldTask> held = new Table<>() {
            @Override public HeldTask get(String key) { heldReads++; return m.held.get(key); }
            @Override public void put(String key, HeldTask value) { m.held.put(key, value); }
            @Override public void delete(String key) { m.held.delete(key); }
            @Override public void forEach(BiConsumer<String, HeldTask> action) {
                m.held.forEach((key, value) -> {
                    heldReads++;
                    action.accept(key, value);
                });
            }
        };
        return new DispatchStore() {
            @Override public Table<FrameworkHeartbeat> frameworks() { return m.shards; }
            @Override public Table<HeldTask> heldTasks() { return held; }
            @Override public Table<TaskDispatch> inflightTasks() { return m.inflight; }
        };
    }

    private static TaskDefinition forHpc(String name, double cpu) {
        TaskDefinition t = task(name);
        t.setFramework("hpc");
        t.getResources().setCpu(cpu);
        return t;
    }

    private long heldEventsAt(long at) {
        return memory.events.stream().filter(e -> e.getType() == TaskEventType.HELD && e.getAt() == at).count();
    }

    @Test
    void attemptsThatArriveTogetherAreDecidedOverOneReadOfTheHeartbeats() {
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        int[] reads = {0};
        Table<FrameworkHeartbeat> shards = new Table<>() {
            @Override public FrameworkHeartbeat get(String key) { return memory.shards.get(key); }
            @Override public void put(String key, FrameworkHeartbeat value) { memory.shards.put(key, value); }
            @Override public void delete(String key) { memory.shards.delete(key); }
            @Override public void forEach(BiConsumer<String, FrameworkHeartbeat> action) {
                reads[0]++;
                memory.shards.forEach(action);
            }
        };
        DispatchStore store = new DispatchStore() {
            @Override public Table<FrameworkHeartbeat> frameworks() { return shards; }
            @Override public Table<HeldTask> heldTasks() { return memory.held; }
            @Override public Table<TaskDispatch> inflightTasks() { return memory.inflight; }
        };
        Dispatcher d = new Dispatcher(new FrameworkSelector(15_000), store, memory, 10_000, 5_000);
        List<TaskReady> together = new ArrayList<>();
        for (int i = 0; i < 12; i++) together.add(ready("j", task("s" + i), 1)); // 6 cpu in all: the shard queues what it cannot start
        d.onReady(together, 1_000);
        assertEquals(1, reads[0], "one read for the twelve");
        assertEquals(12, memory.dispatched.size());
        assertEquals(12, memory.inflight.size());
    }

    @Test
    void anAttemptLeavesTheInFlightStoreWithOneDeleteAndNoReadHoweverManyOfItsEventsLand() {
        int[] deletes = {0}, reads = {0};
        Table<TaskDispatch> inflight = new Table<>() {
            @Override public TaskDispatch get(String key) { reads[0]++; return memory.inflight.get(key); }
            @Override public void put(String key, TaskDispatch value) { memory.inflight.put(key, value); }
            @Override public void delete(String key) { deletes[0]++; memory.inflight.delete(key); }
            @Override public void forEach(BiConsumer<String, TaskDispatch> action) { memory.inflight.forEach(action); }
        };
        DispatchStore store = new DispatchStore() {
            @Override public Table<FrameworkHeartbeat> frameworks() { return memory.shards; }
            @Override public Table<HeldTask> heldTasks() { return memory.held; }
            @Override public Table<TaskDispatch> inflightTasks() { return inflight; }
        };
        Dispatcher d = new Dispatcher(new FrameworkSelector(15_000), store, memory, 10_000, 5_000);
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000));
        TaskReady r = ready("j", task("a"), 1), other = ready("j", task("b"), 1);
        d.onReady(List.of(r, other), 1_000);
        assertEquals(2, memory.inflight.size());
        for (TaskEventType type : List.of(TaskEventType.PLACED, TaskEventType.STARTED, TaskEventType.SUCCEEDED)) {
            d.onEvent(event(r, type));
        }
        assertEquals(1, memory.inflight.size());
        assertTrue(memory.inflight.containsKey("j.b.1"));
        assertEquals(1, deletes[0], "each delete is a changelog record: one per attempt, not one per event that lands");
        assertEquals(0, reads[0], "whether an attempt is still in flight is known without reading its dispatch");

        Dispatcher restarted = new Dispatcher(new FrameworkSelector(15_000), store, memory, 10_000, 5_000);
        restarted.onEvent(event(other, TaskEventType.PLACED));
        assertTrue(memory.inflight.isEmpty(), "a dispatcher started again learns from the store what is in flight");
        assertEquals(2, deletes[0]);
    }

    @Test
    void aRoundOverManyEqualHeldAttemptsDecidesOncePerGroupAndSendsThemInPriorityOrder() {
        Dispatcher d = new Dispatcher(new FrameworkSelector(15_000), countingReads(memory), memory, 10_000, 5_000);
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 1_000)); // room, but not the framework they ask for
        for (int i = 0; i < 1_000; i++) d.onReady(ready("j", forHpc("s" + i, 0.5), 1), 1_000);
        d.onReady(TaskReady.newBuilder(ready("k", forHpc("urgent", 1), 1)).setPriority(5).build(), 1_000);
        assertEquals(1_001, memory.held.size());

        d.round(1_500); // the first round after a start reads them all, once
        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 2_000));
        heldReads = 0;
        d.round(2_000);
        assertEquals(2, heldReads, "one read per group of equal attempts");
        assertEquals(0, heldEventsAt(2_000), "the same reason is not told again");

        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 3_000));
        FrameworkHeartbeat hpc = framework("hpc", 0, 4, 4096 * MIB, 3_000);
        hpc.setAcceptLimit(3);
        memory.heartbeat(hpc);
        d.round(3_000);
        assertEquals(List.of("k.urgent.1", "j.s0.1", "j.s1.1"), memory.dispatched.stream().map(t -> t.getReady().getAttemptId()).toList(),
                "priority first, then the longest held, up to hpc's queue room");
        assertEquals(998, memory.held.size());
        assertEquals(998, heldEventsAt(3_000), "a new reason in words reaches each one still held, once");

        memory.heartbeat(framework("ecs", 0, 4, 4096 * MIB, 4_000));
        FrameworkHeartbeat full = framework("hpc", 0, 4, 4096 * MIB, 4_000);
        full.setAcceptLimit(3);
        full.setQueued(3);
        memory.heartbeat(full);
        heldReads = 0;
        d.round(4_000);
        assertEquals(1, heldReads, "one group left, still held for the same reason in words");
        assertEquals(0, heldEventsAt(4_000));
    }
}
