package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.common.framework.FrameworkEvents;
import io.flash.schema.AttemptEvent;
import io.flash.schema.AttemptState;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskReady;

/**
 * How a cluster job's states read as the planner's: the cluster's phase, the marks its script left
 * in the workspace (timeout, OOM kill, exit status, usage) and whether Flash stopped it decide the
 * attempt's state and failure class, as Flash's own nodes would report them.
 */
final class JobEndings {

    private final String frameworkId;
    private final Workspaces workspaces;
    private final FrameworkEvents events;

    JobEndings(String frameworkId, Workspaces workspaces, FrameworkEvents events) {
        this.frameworkId = frameworkId;
        this.workspaces = workspaces;
        this.events = events;
    }

    /**
     * How a finished job ended, in the planner's terms.
     *
     * @param fencedAt         when the dispatcher's fence of the attempt was read, or null
     * @param cancelledByFlash whether Flash asked the cluster to stop it (a cancel or a fence)
     */
    TaskEvent ended(TaskReady r, Cluster.Job job, Long fencedAt, boolean cancelledByFlash, long now) {
        String id = r.getAttemptId();
        if (job.phase() == Cluster.Phase.NODE_LOST) {
            return events.lost(r, job.node(), FailureClass.NODE_LOST, "the cluster lost its node (" + job.state() + ")", now);
        }
        if (job.phase() == Cluster.Phase.SPOT_LOST) { // the platform's loss, free to the user up to maxSpotAttempts
            return events.lost(r, job.node(), FailureClass.SPOT_RECLAIMED, "its spot node was reclaimed (" + job.state() + ")", now);
        }
        AttemptEvent report = switch (job.phase()) {
            // A cancelled job never reports success (a fenced one's success stands: its outputs are written).
            case SUCCEEDED -> cancelledByFlash && fencedAt == null
                    ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED, "cancelled (it had just finished)", now)
                    : succeeded(r, job, now);
            case OUT_OF_MEMORY -> report(r, job, AttemptState.FAILED, FailureClass.OOM_KILLED, "the cluster killed it for its memory", now);
            case TIMEOUT -> report(r, job, AttemptState.FAILED, FailureClass.TIMEOUT, "the cluster ended it at its time limit", now);
            case PREEMPTED -> report(r, job, AttemptState.FAILED, FailureClass.PREEMPTED, "preempted by the cluster", now);
            case CANCELLED -> cancelledByFlash ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED, "cancelled", now)
                    : report(r, job, AttemptState.FAILED, FailureClass.INFRASTRUCTURE,
                    "cancelled in the cluster by someone other than Flash (" + job.state() + ")", now);
            // A cluster that forgot the cancelled job before a poll saw it (Slurm's MinJobAge) leaves only the
            // script's exit status, 143 from the SIGTERM: the cancel's doing, not the program's failure.
            default -> cancelledByFlash ? report(r, job, AttemptState.CANCELLED, FailureClass.CANCELLED,
                    "cancelled (ended " + job.state() + ")", now)
                    : workspaces.timedOut(r.getJobId(), id)
                    ? report(r, job, AttemptState.FAILED, FailureClass.TIMEOUT, "ran past its timeout of " + r.getTask().getTimeoutSeconds() + " s", now)
                    : workspaces.oomKilled(r.getJobId(), id)
                    ? report(r, job, AttemptState.FAILED, FailureClass.OOM_KILLED, "the kernel killed it for exceeding its memory limit", now)
                    : report(r, job, AttemptState.FAILED, FailureClass.USER, job.exitCode() == null ? job.reason() : null, now);
        };
        return events.reported(r, job.node(), report, fencedAt, null);
    }

    /** A success with its declared outputs listed; one that left a declared output out is the program's failure, as on Flash's nodes. */
    private AttemptEvent succeeded(TaskReady r, Cluster.Job job, long now) {
        Workspaces.Outputs outputs = workspaces.outputs(r.getJobId(), r.getTask().getOutputs());
        if (!outputs.missing().isEmpty()) {
            return report(r, job, AttemptState.FAILED, FailureClass.USER, "exited 0 but left no " + String.join(", ", outputs.missing())
                    + " in the job workspace (declared in outputs)", now);
        }
        AttemptEvent ok = report(r, job, AttemptState.SUCCEEDED, null, null, now);
        ok.setOutputs(outputs.found());
        return ok;
    }

    AttemptEvent report(TaskReady r, Cluster.Job job, AttemptState state, FailureClass cause, String reason, long now) {
        Workspaces.Usage used = state == AttemptState.STARTED ? null : workspaces.usage(r.getJobId(), r.getAttemptId());
        return AttemptEvent.newBuilder().setNodeId(job.node() == null ? frameworkId : job.node()).setJobId(r.getJobId())
                .setTaskId(r.getTaskId()).setAttemptId(r.getAttemptId()).setState(state)
                .setExitCode(state == AttemptState.STARTED ? null : job.exitCode()).setFailureClass(cause).setReason(reason)
                .setStdoutTail(state == AttemptState.STARTED ? null : workspaces.tail(r.getJobId(), r.getAttemptId()))
                .setPeakMemoryBytes(used == null ? null : used.peakMemoryBytes()).setCpuSeconds(used == null ? null : used.cpuSeconds())
                .setAt(now).build();
    }
}
