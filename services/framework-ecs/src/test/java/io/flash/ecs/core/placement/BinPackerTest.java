package io.flash.ecs.core.placement;

import io.flash.common.resources.Resources;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class BinPackerTest {

    private final BinPacker packer = new BinPacker();

    private static NodeRecord record(String id, double cpu, long memory, Capacity allocated) {
        return NodeRecord.newBuilder().setHeartbeat(node(id, cpu, memory, 0L)).setAllocated(allocated)
                .setPlacedAttempts(new ArrayList<>()).setLastSeenAt(0L).setLost(false).build();
    }

    private static TaskDefinition needs(double cpu, long memory) {
        TaskDefinition t = task("a");
        t.setResources(new Capacity(cpu, memory, 0L, 0));
        return t;
    }

    @Test
    void bestFitLeavesBigGapsOpen() {
        NodeRecord big = record("big", 16, 65536 * MIB, Resources.zero());
        NodeRecord small = record("small", 2, 2048 * MIB, Resources.zero());
        assertEquals("small", packer.place(needs(1, 512 * MIB), List.of(big, small)).nodeId());
    }

    @Test
    void countsWhatIsAlreadyAllocated() {
        NodeRecord full = record("full", 4, 4096 * MIB, new Capacity(3.5, 1024 * MIB, 0L, 0));
        NodeRecord free = record("free", 4, 4096 * MIB, Resources.zero());
        assertEquals("free", packer.place(needs(1, 64 * MIB), List.of(full, free)).nodeId());
    }

    @Test
    void prefersANodeThatHasTheImage() {
        NodeRecord a = record("a", 4, 4096 * MIB, Resources.zero());
        NodeRecord b = record("b", 4, 4096 * MIB, Resources.zero());
        b.getHeartbeat().setImages(List.of("flash/shell:1"));
        assertEquals("b", packer.place(needs(1, 64 * MIB), List.of(a, b)).nodeId());
    }

    @Test
    void explainsWhyNoNodeFits() {
        NodeRecord busy = record("busy", 2, 4096 * MIB, new Capacity(2.0, 0L, 0L, 0));
        NodeRecord hdd = record("hdd", 8, 4096 * MIB, Resources.zero());
        hdd.getHeartbeat().setDiskType(DiskType.HDD);
        NodeRecord lost = record("lost", 8, 4096 * MIB, Resources.zero());
        lost.setLost(true);
        TaskDefinition t = needs(1, 64 * MIB);
        t.setDiskType(DiskType.SSD);
        BinPacker.Choice choice = packer.place(t, List.of(busy, hdd, lost));
        assertNull(choice.nodeId());
        assertEquals("3 nodes: 1 lack disk type ssd; 1 lack free cpu; 1 lost", choice.reason());
    }

    @Test
    void honoursNodeLabels() {
        NodeRecord plain = record("plain", 4, 4096 * MIB, Resources.zero());
        NodeRecord gpuLab = record("lab", 4, 4096 * MIB, Resources.zero());
        gpuLab.getHeartbeat().setLabels(java.util.Map.of("room", "wet-lab"));
        TaskDefinition t = needs(1, 64 * MIB);
        t.setNodeLabels(java.util.Map.of("room", "wet-lab"));
        assertEquals("lab", packer.place(t, List.of(plain, gpuLab)).nodeId());
        assertEquals("1 node: 1 lack label room=wet-lab", packer.place(t, List.of(plain)).reason());
    }

    @Test
    void anAttemptThatMayNotUseSpotNeverLandsOnASpotNode() {
        NodeRecord spot = record("spot", 2, 2048 * MIB, Resources.zero());
        spot.getHeartbeat().setSpot(true);
        NodeRecord onDemand = record("on-demand", 16, 65536 * MIB, Resources.zero());
        TaskDefinition allowed = needs(1, 512 * MIB);
        assertEquals("spot", packer.place(allowed, List.of(spot, onDemand)).nodeId(), "the tighter fit, spot allowed");
        TaskDefinition never = needs(1, 512 * MIB);
        never.setSpotAllowed(false);
        assertEquals("on-demand", packer.place(never, List.of(spot, onDemand)).nodeId());
        NodeIndex index = new NodeIndex();
        index.put(spot);
        index.put(onDemand);
        assertEquals("on-demand", packer.place(never, index, List.of(spot, onDemand)).nodeId(), "the index path too");
        assertEquals("1 node: 1 are spot capacity, which this attempt may not use (spot: never, or reclaimed too often)",
                packer.place(never, List.of(spot)).reason());
    }

    @Test
    void theIndexFindsTheSameTightFitWithoutScanningEveryNode() {
        List<NodeRecord> nodes = new ArrayList<>();
        NodeIndex index = new NodeIndex();
        for (int i = 0; i < 200; i++) {
            // Free cpu from 0.25 up to 16 in steps; node-130 and up have room for 8 cpu.
            NodeRecord n = record(String.format("node-%03d", i), 16, 65536 * MIB, new Capacity(16 - (i + 1) * 0.08, 0L, 0L, 0));
            nodes.add(n);
            index.put(n);
        }
        TaskDefinition task = needs(8, 512 * MIB);
        BinPacker.Choice viaIndex = packer.place(task, index, nodes);
        assertEquals(packer.place(task, nodes).nodeId(), viaIndex.nodeId(), "the tightest fit in cpu is among the first candidates");

        NodeRecord chosen = nodes.stream().filter(n -> n.getHeartbeat().getNodeId().equals(viaIndex.nodeId())).findFirst().orElseThrow();
        chosen.setAllocated(chosen.getHeartbeat().getTotal());
        index.put(chosen);
        assertNotEquals(viaIndex.nodeId(), packer.place(task, index, nodes).nodeId(), "a full node leaves the candidates");

        chosen.setLost(true);
        index.put(chosen);
        assertEquals(199, index.size(), "a lost node leaves the index");
        BinPacker.Choice none = packer.place(needs(17, MIB), index, nodes);
        assertNull(none.nodeId());
        assertTrue(none.reason().contains("are too small in total"), "nothing fits: explained from all nodes: " + none.reason());
    }
}
