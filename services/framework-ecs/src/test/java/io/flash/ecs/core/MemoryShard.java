package io.flash.ecs.core;

import io.flash.common.state.MemoryTable;
import io.flash.common.state.Table;
import io.flash.ecs.core.placement.BinPacker;
import io.flash.schema.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * One shard over in-memory ports: what it publishes is collected per kind, its resume markers come
 * back after the record being handled (as its own tasks partition would deliver them), and time
 * moves only when the test says.
 */
final class MemoryShard implements ShardStore, ShardOutbox {

    long now = 100_000;
    private final NodeTable nodes = new NodeTable();
    private final MemoryTable<TaskDispatch> queue = new MemoryTable<>();
    private final MemoryTable<Placement> placements = new MemoryTable<>();
    private final MemoryTable<Long> clock = new MemoryTable<>();
    private final List<Assignment> assignments = new ArrayList<>();
    private final List<TaskEvent> events = new ArrayList<>();
    final List<FrameworkHeartbeat> heartbeats = new ArrayList<>();
    private final List<String> markers = new ArrayList<>();
    private final ShardSettings settings;
    private ShardScheduler scheduler;
    /** Waiting attempts tried for placement so far: what the scheduling passes cost. */
    long tries;

    MemoryShard(ShardSettings settings) {
        this.settings = settings;
        start();
    }

    /** The shard process restarted: it knows only what its store kept. */
    void restart() {
        start();
    }

    private void start() {
        scheduler = new ShardScheduler(settings, new BinPacker(), new ShardMetrics() {
            @Override
            public void tried() {
                tries++;
            }
        }, 0, this, this, now);
    }

    void dispatch(TaskDispatch dispatch) {
        scheduler.onDispatch(dispatch, now);
        deliverMarkers();
    }

    void heartbeat(NodeHeartbeat heartbeat) {
        scheduler.onNodeHeartbeat(heartbeat, now);
        deliverMarkers();
    }

    void report(AttemptEvent event) {
        scheduler.onAttemptEvent(event, now);
        deliverMarkers();
    }

    void advance(long millis) {
        now += millis;
    }

    /** The shard running normally: a tick every second. */
    void runFor(int seconds) {
        for (int i = 0; i < seconds; i++) {
            now += 1_000;
            scheduler.tick(now);
            deliverMarkers();
        }
    }

    private void deliverMarkers() {
        while (!markers.isEmpty()) scheduler.onMarker(markers.remove(0), now);
    }

    /** Drains what was assigned to nodes so far. */
    List<Assignment> assignments() {
        List<Assignment> out = List.copyOf(assignments);
        assignments.clear();
        return out;
    }

    Assignment assignment() {
        if (assignments.isEmpty()) throw new AssertionError("no assignment");
        return assignments.remove(0);
    }

    boolean noAssignments() {
        return assignments.isEmpty();
    }

    /** Drains the task events so far. */
    List<TaskEvent> events() {
        List<TaskEvent> out = List.copyOf(events);
        events.clear();
        return out;
    }

    TaskEvent event() {
        if (events.isEmpty()) throw new AssertionError("no task event");
        return events.remove(0);
    }

    boolean noEvents() {
        return events.isEmpty();
    }

    @Override
    public Table<NodeRecord> nodes() {
        return nodes;
    }

    /**
     * Keeps a copy of each node record as written, as a real store keeps its serialised bytes: a
     * record the scheduler changes afterwards in memory without writing it is not changed here.
     */
    private static final class NodeTable implements Table<NodeRecord> {
        private final MemoryTable<NodeRecord> written = new MemoryTable<>();

        @Override
        public NodeRecord get(String key) {
            NodeRecord node = written.get(key);
            return node == null ? null : NodeRecord.newBuilder(node).build();
        }

        @Override
        public void put(String key, NodeRecord value) {
            written.put(key, NodeRecord.newBuilder(value).build());
        }

        @Override
        public void delete(String key) {
            written.delete(key);
        }

        @Override
        public void forEach(BiConsumer<String, NodeRecord> action) {
            written.forEach((key, node) -> action.accept(key, NodeRecord.newBuilder(node).build()));
        }
    }

    @Override
    public MemoryTable<TaskDispatch> queue() {
        return queue;
    }

    @Override
    public MemoryTable<Placement> placements() {
        return placements;
    }

    @Override
    public MemoryTable<Long> clock() {
        return clock;
    }

    @Override
    public void assignment(Assignment assignment) {
        assignments.add(assignment);
    }

    @Override
    public void event(TaskEvent event) {
        events.add(event);
    }

    @Override
    public void heartbeat(FrameworkHeartbeat heartbeat) {
        heartbeats.add(heartbeat);
    }

    @Override
    public void marker(String key) {
        markers.add(key);
    }
}
