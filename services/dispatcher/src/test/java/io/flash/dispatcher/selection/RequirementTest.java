package io.flash.dispatcher.selection;

import io.flash.schema.TaskReady;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class RequirementTest {

    @Test
    void holdReasonsDifferingOnlyInFiguresAreTheSameNews() {
        assertTrue(Requirement.sameInWords("ecs has a full queue (1000 of 1000 waiting; 2 of 8 cpu and 8192Mi memory free)",
                "ecs has a full queue (1000 of 1000 waiting; 0.5 of 8 cpu and 100Mi memory free)"));
        assertFalse(Requirement.sameInWords("ecs has a full queue (1000 of 1000 waiting; 2 of 8 cpu free)",
                "ecs is down (no heartbeat for 20 s)"));
        assertFalse(Requirement.sameInWords(null, "ecs is down"));
    }

    @Test
    void attemptsOfOneScatterHaveOneRequirementAndADifferentNeedAnother() {
        TaskReady a = ready("j", task("t"), 1), b = ready("j", task("t"), 2);
        assertEquals(Requirement.of(a), Requirement.of(b));
        b.getTask().setNodeLabels(Map.of("kind", "real"));
        assertNotEquals(Requirement.of(a), Requirement.of(b));
        TaskReady c = ready("j", task("t"), 3);
        c.setExcludedFrameworks(List.of("ecs"));
        assertNotEquals(Requirement.of(a), Requirement.of(c));
    }
}
