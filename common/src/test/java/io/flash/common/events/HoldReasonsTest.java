package io.flash.common.events;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class HoldReasonsTest {

    @Test
    void reasonsDifferingOnlyInFiguresAreTheSameNews() {
        assertTrue(HoldReasons.sameInWords("ecs has a full queue (1000 of 1000 waiting; 2 of 8 cpu and 8192Mi memory free)",
                "ecs has a full queue (1000 of 1000 waiting; 0.5 of 8 cpu and 100Mi memory free)"));
        assertTrue(HoldReasons.sameInWords("ecs shard 0: 50 nodes: 33 lack free cpu; 17 lost", "ecs shard 0: 50 nodes: 50 lack free cpu; 0 lost"));
        assertFalse(HoldReasons.sameInWords("ecs shard 0: 50 nodes: 50 lack free cpu", "ecs shard 0: 50 nodes: 33 lack free cpu; 17 lost"));
        assertFalse(HoldReasons.sameInWords("ecs has a full queue (1000 of 1000 waiting)", "ecs is down (no heartbeat for 20 s)"));
        assertFalse(HoldReasons.sameInWords(null, "ecs is down"));
    }
}
