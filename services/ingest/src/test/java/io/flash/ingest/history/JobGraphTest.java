package io.flash.ingest.history;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class JobGraphTest {

    private static TaskDefinition task(String name, String... deps) {
        TaskDefinition t = io.flash.common.testing.Samples.task(name, deps);
        return t;
    }

    private static TaskSummary unit(String id, String name, TaskState state) {
        return TaskSummary.newBuilder().setTaskId(id).setName(name).setState(state).build();
    }

    @Test
    void theGraphHasEveryTaskWithItsDependenciesAndOneStateFromItsUnits() {
        TaskDefinition align = task("align", "ref");
        align.setScatter(Scatter.newBuilder().setFrom(0L).setTo(3L).setShardSize(1).setShards(3).build());
        JobAccepted spec = io.flash.common.testing.Samples.job("j", task("ref"), align, task("merge", "align"));
        JobGraph.Graph graph = JobGraph.of("j", spec, List.of(unit("j.ref", "ref", TaskState.SUCCEEDED),
                unit("j.align.s0", "align[0]", TaskState.SUCCEEDED), unit("j.align.s1", "align[1]", TaskState.RUNNING)));

        assertTrue(graph.dependenciesKnown());
        assertEquals(List.of("ref", "align", "merge"), graph.tasks().stream().map(JobGraph.Task::name).toList());
        JobGraph.Task a = graph.tasks().get(1);
        assertEquals(List.of("ref"), a.dependsOn());
        assertEquals(3, a.shards());
        assertEquals(Map.of("SUCCEEDED", 1, "RUNNING", 1), a.units());
        assertEquals("RUNNING", a.state());
        assertEquals("SUCCEEDED", graph.tasks().get(0).state());
        assertEquals("PENDING", graph.tasks().get(2).state(), "no unit yet");
    }

    @Test
    void withoutTheAcceptedJobTheTasksComeFromTheUnitsAndTheEdgesAreUnknown() {
        JobGraph.Graph graph = JobGraph.of("j", null, List.of(unit("j.a", "a", TaskState.FAILED), unit("j.b.s0", "b[0]", TaskState.SUCCEEDED)));
        assertFalse(graph.dependenciesKnown());
        assertEquals(List.of("a", "b"), graph.tasks().stream().map(JobGraph.Task::name).toList());
        assertEquals("FAILED", graph.tasks().get(0).state());
        assertEquals("SUCCEEDED", graph.tasks().get(1).state());
    }

    @Test
    void aTaskIsDoneOnlyWhenAllItsUnitsSucceeded() {
        assertEquals(TaskState.RUNNING, JobGraph.rollUp(Map.of(TaskState.SUCCEEDED, 2), 3));
        assertEquals(TaskState.FAILED, JobGraph.rollUp(Map.of(TaskState.SUCCEEDED, 2, TaskState.FAILED, 1), 3));
        assertEquals(TaskState.RUNNING, JobGraph.rollUp(Map.of(TaskState.PLACED, 1), 1));
        assertEquals(TaskState.SUCCEEDED, JobGraph.rollUp(Map.of(TaskState.SUCCEEDED, 3), 3));
    }
}
