package io.flash.dispatcher.core.selection;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class FrameworkSelectorTest {

    private static final long NOW = 100_000;
    private final FrameworkSelector selector = new FrameworkSelector(15_000);

    private static TaskReady readyTask(double cpu, long memory) {
        TaskDefinition t = task("a");
        t.setResources(new Capacity(cpu, memory, 0L, 0));
        return ready("j", t, 1);
    }

    @Test
    void holdsWhenNoFrameworkHasBeatYet() {
        Decision d = selector.choose(readyTask(1, MIB), List.of(), Map.of(), NOW);
        assertEquals(new Decision.Hold("no framework has sent a heartbeat yet"), d);
    }

    @Test
    void picksTheShardWithTheMostRoom() {
        FrameworkHeartbeat small = framework("ecs", 0, 2, 1024 * MIB, NOW);
        FrameworkHeartbeat big = framework("ecs", 1, 8, 8192 * MIB, NOW);
        Decision d = selector.choose(readyTask(1, 64 * MIB), List.of(small, big), Map.of(), NOW);
        assertEquals(new Decision.Dispatch("ecs", 1), d);
    }

    @Test
    void anElasticFrameworkWithNoNodeTakesWhatOneOfItsClassesCouldRun() {
        FrameworkHeartbeat empty = framework("elastic", 0, 2, 1024 * MIB, NOW);
        empty.setNodes(0);
        empty.setTotal(new Capacity(0.0, 0L, 0L, 0));
        empty.setFree(empty.getTotal());
        empty.setLargestNodeFree(empty.getTotal());
        empty.setLargestNodeTotal(empty.getTotal());
        empty.setDiskTypes(List.of());
        empty.setNodeClasses(List.of(NodeClass.newBuilder().setName("standard-4").setCapacity(new Capacity(4.0, 8192 * MIB, 0L, 0))
                .setLabels(Map.of("pool", "burst")).setOnDemandPerHour(0.17).setSpotPerHour(0.07).build()));
        assertInstanceOf(Decision.Hold.class, selector.choose(readyTask(1, 64 * MIB), List.of(empty), Map.of(), NOW),
                "without an autoscaler an empty framework holds the attempt at level 1");
        empty.setElastic(true);
        TaskReady labelled = readyTask(3, 64 * MIB);
        labelled.getTask().setNodeLabels(Map.of("pool", "burst"));
        labelled.getTask().setDiskType(DiskType.SSD);
        assertEquals(new Decision.Dispatch("elastic", 0), selector.choose(labelled, List.of(empty), Map.of(), NOW),
                "its class has the room, the label and any disk type: waiting there is what makes the autoscaler add a node");
        assertInstanceOf(Decision.Fail.class, selector.choose(readyTask(16, 64 * MIB), List.of(empty), Map.of(), NOW),
                "no class of it could ever run 16 cpu");
    }

    @Test
    void sendsNothingToAShardWhoseInstanceIsLeaving() {
        FrameworkHeartbeat leavingBig = framework("ecs", 0, 64, 65536 * MIB, NOW);
        leavingBig.setLeaving(true);
        FrameworkHeartbeat staying = framework("ecs", 1, 2, 1024 * MIB, NOW);
        assertEquals(new Decision.Dispatch("ecs", 1), selector.choose(readyTask(1, 64 * MIB), List.of(leavingBig, staying), Map.of(), NOW),
                "the roomier shard is leaving: its room is not there to use");
        FrameworkHeartbeat gone = framework("gone", 0, 64, 65536 * MIB, NOW);
        gone.setLeaving(true);
        assertEquals(new Decision.Hold("1 framework: gone is shutting down (its shards said they are leaving)"),
                selector.choose(readyTask(1, 64 * MIB), List.of(gone), Map.of(), NOW));
        assertFalse(selector.anyQueueRoom(List.of(gone), Map.of(), NOW));
        gone.setLeaving(false);
        assertEquals(new Decision.Dispatch("gone", 0), selector.choose(readyTask(1, 64 * MIB), List.of(gone), Map.of(), NOW),
                "its next owner's heartbeat says it is not leaving: it takes work again");
    }

    @Test
    void prefersTheFrameworkWhereDependenciesRan() {
        TaskReady r = readyTask(1, 64 * MIB);
        r.setDependencyFrameworks(List.of("small"));
        Decision d = selector.choose(r, List.of(framework("small", 0, 2, 1024 * MIB, NOW), framework("big", 0, 64, 65536 * MIB, NOW)),
                Map.of(), NOW);
        assertEquals(new Decision.Dispatch("small", 0), d);
    }

    @Test
    void explainsEveryFrameworkItPassedOver() {
        FrameworkHeartbeat down = framework("ecs-b", 0, 8, 8192 * MIB, NOW - 60_000);
        FrameworkHeartbeat busy = framework("ecs-c", 0, 8, 8192 * MIB, NOW);
        busy.setFree(new Capacity(2.0, 8192 * MIB, 0L, 0));
        busy.setLargestNodeFree(busy.getFree());
        busy.setQueued(100);
        FrameworkHeartbeat hdd = framework("ecs-a", 0, 8, 8192 * MIB, NOW);
        hdd.setDiskTypes(List.of(DiskType.HDD));
        TaskReady r = readyTask(4, 64 * MIB);
        r.getTask().setDiskType(DiskType.SSD);

        Decision d = selector.choose(r, List.of(hdd, down, busy), Map.of(), NOW);
        assertEquals(new Decision.Hold("3 frameworks: ecs-a lacks disk type ssd; ecs-b is down (no heartbeat for 60 s); "
                + "ecs-c has a full queue (100 of 100 waiting; 2 of 8 cpu and 8192Mi memory free)"), d);
    }

    @Test
    void sendsALabelledTaskOnlyToAShardWithSuchANode() {
        FrameworkHeartbeat simulated = framework("ecs", 0, 64, 65536 * MIB, NOW);
        simulated.setNodeLabels(List.of("kind=sim"));
        FrameworkHeartbeat real = framework("ecs", 1, 2, 1024 * MIB, NOW);
        real.setNodeLabels(List.of("kind=real", "zone=a"));
        TaskReady r = readyTask(1, 64 * MIB);
        r.getTask().setNodeLabels(Map.of("kind", "real"));
        assertEquals(new Decision.Dispatch("ecs", 1), selector.choose(r, List.of(simulated, real), Map.of(), NOW));
        r.getTask().setNodeLabels(Map.of("kind", "gpu"));
        assertEquals(new Decision.Fail("1 framework: ecs has no node labelled kind=gpu"),
                selector.choose(r, List.of(simulated, real), Map.of(), NOW));
    }

    @Test
    void knowsWhenNoQueueHasRoom() {
        FrameworkHeartbeat full = framework("ecs", 0, 8, 8192 * MIB, NOW);
        full.setQueued(full.getAcceptLimit());
        FrameworkHeartbeat silent = framework("ecs", 1, 8, 8192 * MIB, NOW - 60_000);
        assertFalse(selector.anyQueueRoom(List.of(full, silent), Map.of(), NOW), "a full shard and a silent one");
        FrameworkHeartbeat open = framework("ecs", 2, 8, 8192 * MIB, NOW);
        assertTrue(selector.anyQueueRoom(List.of(full, silent, open), Map.of(), NOW));
        assertFalse(selector.anyQueueRoom(List.of(full, silent, open),
                Map.of("ecs/2", new FrameworkSelector.Reservation(open.getAcceptLimit(), 0, 0)), NOW), "its room already sent");
    }

    @Test
    void failsWhatNoFrameworkCouldEverRun() {
        Decision d = selector.choose(readyTask(64, MIB), List.of(framework("ecs", 0, 8, 8192 * MIB, NOW)), Map.of(), NOW);
        assertEquals(new Decision.Fail("1 framework: ecs has no node with 64 cpu (largest: 8)"), d);
    }

    @Test
    void honoursTheRequestedFrameworkAndExclusions() {
        TaskReady r = readyTask(1, MIB);
        r.getTask().setFramework("gpu");
        Decision d = selector.choose(r, List.of(framework("ecs", 0, 8, 8192 * MIB, NOW)), Map.of(), NOW);
        assertTrue(d instanceof Decision.Hold h && h.reason().startsWith("requested framework gpu has not sent a heartbeat"), d.toString());

        TaskReady excluded = readyTask(1, MIB);
        excluded.setExcludedFrameworks(List.of("ecs"));
        assertEquals(new Decision.Dispatch("other", 0), selector.choose(excluded,
                List.of(framework("ecs", 0, 8, 8192 * MIB, NOW), framework("other", 0, 2, 1024 * MIB, NOW)), Map.of(), NOW),
                "a retry avoids the framework it failed on");
        assertEquals(new Decision.Dispatch("ecs", 0),
                selector.choose(excluded, List.of(framework("ecs", 0, 8, 8192 * MIB, NOW)), Map.of(), NOW),
                "with nowhere else to go, the excluded framework may try again");
    }

    @Test
    void reservationsSinceTheLastHeartbeatCountAgainstFreeRoom() {
        FrameworkHeartbeat a = framework("a", 0, 2, 1024 * MIB, NOW);
        FrameworkHeartbeat b = framework("b", 0, 2, 1024 * MIB, NOW);
        Map<String, FrameworkSelector.Reservation> reserved = Map.of("a/0", new FrameworkSelector.Reservation(1, 1.0, 128 * MIB));
        assertEquals(new Decision.Dispatch("b", 0), selector.choose(readyTask(1, MIB), List.of(a, b), reserved, NOW));
    }

    @Test
    void queuesAtABusyFrameworkRatherThanHoldAndPrefersOneThatCanStartItNow() {
        FrameworkHeartbeat busy = framework("busy", 0, 8, 8192 * MIB, NOW);
        busy.setFree(new Capacity(0.0, 0L, 0L, 0));
        busy.setLargestNodeFree(busy.getFree());
        busy.setQueuedDemand(new Capacity(4.0, 512 * MIB, 0L, 0));
        assertEquals(new Decision.Dispatch("busy", 0), selector.choose(readyTask(1, MIB), List.of(busy), Map.of(), NOW),
                "its queue has room: the framework's fair share decides who runs next");
        FrameworkHeartbeat small = framework("small", 0, 1, 1024 * MIB, NOW);
        assertEquals(new Decision.Dispatch("small", 0), selector.choose(readyTask(1, MIB), List.of(busy, small), Map.of(), NOW));
        FrameworkHeartbeat lessBusy = framework("less", 0, 8, 8192 * MIB, NOW);
        lessBusy.setFree(new Capacity(0.0, 0L, 0L, 0));
        lessBusy.setLargestNodeFree(lessBusy.getFree());
        assertEquals(new Decision.Dispatch("less", 0), selector.choose(readyTask(1, MIB), List.of(busy, lessBusy), Map.of(), NOW),
                "among full frameworks, the one with less queued work");
    }

    @Test
    void respectsTheQueueLimit() {
        FrameworkHeartbeat full = framework("ecs", 0, 8, 8192 * MIB, NOW);
        full.setQueued(100);
        Decision d = selector.choose(readyTask(1, MIB), List.of(full), Map.of(), NOW);
        assertEquals(new Decision.Hold("1 framework: ecs has a full queue (100 of 100 waiting; 8 of 8 cpu and 8192Mi memory free)"), d);
    }
}
