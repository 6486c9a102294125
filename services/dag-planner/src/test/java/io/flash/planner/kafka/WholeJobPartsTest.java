package io.flash.planner.kafka;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class WholeJobPartsTest {

    /**
     * Under its own key a part read, changed and not put back stays as stored (the planner leaves a
     * passing dispatch so); kept whole it must too, though another part's write rewrites the record.
     */
    @Test
    void aPartChangedAndNotPutBackStaysAsItWasStored() {
        WholeJobParts parts = WholeJobParts.of(new WholeJob(header(), List.of(task("a")), List.of(),
                List.of(unit("j.a", TaskState.READY), unit("j.b", TaskState.READY))));
        TaskSummary a = parts.unit("j.a");
        a.setState(TaskState.DISPATCHED);
        TaskSummary b = parts.unit("j.b");
        b.setState(TaskState.RUNNING);
        parts.putUnit(b);
        b.setState(TaskState.FAILED); // changed after it was put: not stored either
        parts.spec("a").setImage("changed");

        WholeJob written = parts.record();
        assertEquals(List.of(TaskState.READY, TaskState.RUNNING), written.getUnits().stream().map(TaskSummary::getState).toList());
        assertEquals("flash/shell:1", written.getSpecs().get(0).getImage());
        assertTrue(parts.changed());
    }

    @Test
    void unitsAreListedInIdOrderAndDroppedWithTheDetails() {
        WholeJobParts parts = WholeJobParts.fresh();
        parts.putJob(header());
        for (String id : List.of("j.b.s10", "j.a", "j.b.s2")) parts.putUnit(unit(id, TaskState.READY));
        assertEquals(List.of("j.a", "j.b.s10", "j.b.s2"), parts.units().stream().map(TaskSummary::getTaskId).toList(),
                "the order of the units store's prefix scan");
        parts.forgetDetails();
        assertEquals(List.of(), parts.record().getUnits());
        assertEquals("j", parts.record().getJob().getJobId(), "the header stays");
    }

    private static JobProgress header() {
        return JobProgress.newBuilder().setJobId("j").setSubmissionId("s").setName("j").setOwner("alice").setQueue("default")
                .setAcceptedAt(1L).setState(JobState.RUNNING).setTaskNames(List.of("a")).build();
    }

    private static TaskSummary unit(String id, TaskState state) {
        return TaskSummary.newBuilder().setTaskId(id).setName(id).setState(state).build();
    }
}
