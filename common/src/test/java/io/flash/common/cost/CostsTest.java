package io.flash.common.cost;

import io.flash.schema.Capacity;
import io.flash.schema.FailureClass;
import io.flash.schema.NodeClass;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.TaskEventType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class CostsTest {

    private static final long GI = 1L << 30;
    private static final Capacity NODE = new Capacity(4.0, 8 * GI, 100 * GI, 0);

    @Test
    void anAttemptPaysForTheLargestShareOfTheNodeItHolds() {
        assertEquals(0.25, Costs.dominantShare(new Capacity(1.0, 1 * GI, 0L, 0), NODE), 1e-12, "a quarter of the cpu");
        assertEquals(0.5, Costs.dominantShare(new Capacity(0.5, 4 * GI, 0L, 0), NODE), 1e-12, "half of the memory");
        assertEquals(1.0, Costs.dominantShare(new Capacity(8.0, GI, 0L, 0), NODE), "never more than the whole node");
        assertEquals(0.125, Costs.dominantShare(new Capacity(0.1, GI, 0L, 1), NODE), 1e-12,
                "a gpu the node does not report has no share, so it cannot divide by zero");
    }

    @Test
    void costIsPriceTimesRunTimeTimesShare() {
        double perHour = Costs.perHour(0.20, new Capacity(2.0, GI, 0L, 0), NODE);
        assertEquals(0.10, perHour, 1e-12);
        assertEquals(0.05, Costs.of(perHour, 0, 30 * 60_000), 1e-12, "half an hour at 0.10 an hour");
        assertEquals(0.0, Costs.of(perHour, 10, 5), "a clock that went back costs nothing");
    }

    @Test
    void theUserPaysForWhatTheTaskDidThePlatformForWhatItLost() {
        assertFalse(Costs.platformPays(TaskEventType.SUCCEEDED, null));
        assertFalse(Costs.platformPays(TaskEventType.FAILED, FailureClass.USER));
        assertFalse(Costs.platformPays(TaskEventType.FAILED, FailureClass.OOM_KILLED));
        assertFalse(Costs.platformPays(TaskEventType.CANCELLED, FailureClass.CANCELLED));
        assertTrue(Costs.platformPays(TaskEventType.LOST, FailureClass.NODE_LOST));
        assertTrue(Costs.platformPays(TaskEventType.FAILED, FailureClass.INFRASTRUCTURE));
        assertTrue(Costs.platformPays(TaskEventType.FAILED, FailureClass.PREEMPTED));
    }

    @Test
    void aNodesPriceComesFromItsClassOnDemandOrSpot() {
        NodeClasses catalogue = new NodeClasses(List.of(NodeClass.newBuilder().setName("c5.xlarge").setCapacity(NODE)
                .setOnDemandPerHour(0.17).setSpotPerHour(0.07).setInterruptionsPerHour(0.05).build()));
        assertEquals(Optional.of(0.17), catalogue.pricePerHour(node("a", "c5.xlarge", false)));
        assertEquals(Optional.of(0.07), catalogue.pricePerHour(node("b", "c5.xlarge", true)));
        assertEquals(Optional.empty(), catalogue.pricePerHour(node("c", "unknown", false)));
        assertEquals(Optional.empty(), catalogue.pricePerHour(node("d", null, false)));

        NodeClass counted = catalogue.report(List.of(new NodeClasses.LiveNode(node("a", "c5.xlarge", false), true),
                new NodeClasses.LiveNode(node("b", "c5.xlarge", true), false),
                new NodeClasses.LiveNode(node("c", "unknown", false), true),
                new NodeClasses.LiveNode(node("d", null, false), true))).get(0);
        assertEquals(List.of(2, 1, 1), List.of(counted.getNodes(), counted.getSpotNodes(), counted.getIdleNodes()));
    }

    private static NodeHeartbeat node(String id, String nodeClass, boolean spot) {
        return NodeHeartbeat.newBuilder().setNodeId(id).setFrameworkId("ecs").setTotal(NODE).setFree(NODE)
                .setAssignmentPartition(0).setStartedAt(0).setSentAt(0).setNodeClass(nodeClass).setSpot(spot).build();
    }
}
