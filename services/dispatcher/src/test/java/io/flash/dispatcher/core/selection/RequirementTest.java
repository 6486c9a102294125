package io.flash.dispatcher.core.selection;

import io.flash.schema.TaskReady;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class RequirementTest {

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
