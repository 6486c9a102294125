package io.flash.ingest.tes;

import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TesStatesTest {

    private static JobStatus job(JobState state, String message) {
        return JobStatus.newBuilder().setJobId("j").setName("n").setOwner("o").setState(state).setTasksTotal(2)
                .setMessage(message).setUpdatedAt(1L).build();
    }

    private static TaskSummary unit(TaskState state, FailureClass failure) {
        return TaskSummary.newBuilder().setName("exec-0").setTaskId("j.exec-0").setState(state).setFailureClass(failure).build();
    }

    @Test
    void eachFlashStateHasItsTesState() {
        assertEquals("QUEUED", TesStates.of(job(JobState.ACCEPTED, null), List.of(unit(TaskState.PENDING, null))));
        assertEquals("QUEUED", TesStates.of(job(JobState.RUNNING, null), List.of(unit(TaskState.DISPATCHED, null))));
        assertEquals("INITIALIZING", TesStates.of(job(JobState.RUNNING, null), List.of(unit(TaskState.PLACED, null))));
        assertEquals("RUNNING", TesStates.of(job(JobState.RUNNING, null),
                List.of(unit(TaskState.SUCCEEDED, null), unit(TaskState.RUNNING, null))));
        assertEquals("CANCELING", TesStates.of(job(JobState.RUNNING, "cancelling: by the user"), List.of(unit(TaskState.RUNNING, null))));
        assertEquals("CANCELED", TesStates.of(job(JobState.CANCELLED, null), List.of(unit(TaskState.CANCELLED, FailureClass.CANCELLED))));
        assertEquals("COMPLETE", TesStates.of(job(JobState.SUCCEEDED, null), List.of(unit(TaskState.SUCCEEDED, null))));
    }

    @Test
    void anExecutorsOwnFailureIsAnExecutorErrorAndTheRestIsTheSystems() {
        for (FailureClass own : List.of(FailureClass.USER, FailureClass.OOM_KILLED, FailureClass.TIMEOUT)) {
            assertEquals("EXECUTOR_ERROR", TesStates.of(job(JobState.FAILED, null), List.of(unit(TaskState.FAILED, own))), own.name());
        }
        for (FailureClass system : List.of(FailureClass.INFRASTRUCTURE, FailureClass.NODE_LOST, FailureClass.UNSCHEDULABLE)) {
            assertEquals("SYSTEM_ERROR", TesStates.of(job(JobState.FAILED, null), List.of(unit(TaskState.FAILED, system))), system.name());
        }
    }
}
