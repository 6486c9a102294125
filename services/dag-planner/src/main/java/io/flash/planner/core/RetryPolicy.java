package io.flash.planner.core;

import io.flash.common.resources.MemoryPolicy;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskDefinition;

/**
 * Whether a failed attempt is tried again, and how. A failure of the user's program (exit code,
 * OOM, timeout) spends the task's own budget ({@code maxAttempts}) and follows its exit-code rules;
 * an infrastructure failure spends a separate budget, so a lost node never costs a user a retry.
 *
 * @param infrastructureRetries   retries after node/framework loss or engine failures
 * @param memory                  how an OOM-killed attempt's memory grows, and its ceiling
 * @param frameworkFailureLimit   failures on one framework after which the next attempt avoids it
 * @param maxBackoffSeconds       ceiling of the doubled backoff
 * @param maxSpotAttempts         spot reclaims of one task after which its attempts run on on-demand capacity
 */
public record RetryPolicy(int infrastructureRetries, MemoryPolicy memory, int frameworkFailureLimit, long maxBackoffSeconds,
                          int maxSpotAttempts) {

    public RetryPolicy(int infrastructureRetries, MemoryPolicy memory, int frameworkFailureLimit, long maxBackoffSeconds) {
        this(infrastructureRetries, memory, frameworkFailureLimit, maxBackoffSeconds, 2);
    }

    public static RetryPolicy defaults() {
        return new RetryPolicy(3, MemoryPolicy.defaults(), 2, 3600, 2);
    }

    /** Whether the unit's next attempt may still run on spot capacity after this many spot reclaims. */
    public boolean spotAllowedAfter(int spotLosses) {
        return spotLosses < maxSpotAttempts;
    }

    /** The verdict: retry or not, and a reason a person can read. */
    public record Verdict(boolean retry, String reason) {
    }

    public static boolean isInfrastructure(FailureClass failureClass) {
        return failureClass == FailureClass.NODE_LOST || failureClass == FailureClass.FRAMEWORK_LOST
                || failureClass == FailureClass.INFRASTRUCTURE;
    }

    /**
     * @param userFailures, infraFailures counted including this failure
     * @param memoryBytes   the memory the failed attempt had (grown by earlier OOM kills, or the task's own)
     * @param largestNode   the most memory one node of any framework offers, or 0 when not known
     */
    public Verdict decide(FailureClass cause, Integer exitCode, int userFailures, int infraFailures, TaskDefinition task,
                          long memoryBytes, long largestNode) {
        if (cause == FailureClass.CANCELLED || cause == FailureClass.UNSCHEDULABLE) {
            return new Verdict(false, "");
        }
        if (cause == FailureClass.PREEMPTED) {
            return new Verdict(true, "preemption spends no retry budget");
        }
        if (cause == FailureClass.SPOT_RECLAIMED) {
            return new Verdict(true, "a spot reclaim spends no retry budget");
        }
        if (isInfrastructure(cause)) {
            return infraFailures <= infrastructureRetries
                    ? new Verdict(true, "infrastructure retry " + infraFailures + " of " + infrastructureRetries)
                    : new Verdict(false, "infrastructure retries exhausted (" + infraFailures + " failures)");
        }
        if (cause == FailureClass.USER && exitCode != null) {
            if (task.getFailOnExitCodes().contains(exitCode)) {
                return new Verdict(false, "exit code " + exitCode + " fails at once (failOnExitCodes)");
            }
            if (!task.getRetryOnExitCodes().isEmpty() && !task.getRetryOnExitCodes().contains(exitCode)) {
                return new Verdict(false, "exit code " + exitCode + " is not retried (retryOnExitCodes: "
                        + task.getRetryOnExitCodes() + ")");
            }
        }
        if (cause == FailureClass.OOM_KILLED && memory.atCeiling(memoryBytes)) {
            return new Verdict(false, "it had " + (memoryBytes >> 20) + "Mi, the ceiling (flash.memory.max-task: "
                    + (memory.ceilingBytes() >> 20) + "Mi), so more memory cannot be given");
        }
        if (cause == FailureClass.OOM_KILLED && largestNode > 0 && memoryBytes >= largestNode) {
            return new Verdict(false, "it had " + (memoryBytes >> 20) + "Mi, all the memory of the largest node any framework has ("
                    + (largestNode >> 20) + "Mi), so more memory cannot be given");
        }
        String budget = userFailures + " of " + task.getMaxAttempts() + " attempts used";
        return new Verdict(userFailures < task.getMaxAttempts(), budget);
    }

    /** Memory for the attempt after an OOM kill: grown, but never past the ceiling or the largest node (0: not known). */
    public long grownMemory(long memoryBytes, long largestNode) {
        long grown = memory.grown(memoryBytes);
        return largestNode > 0 ? Math.min(grown, Math.max(largestNode, memoryBytes)) : grown;
    }

    /**
     * Memory for the next attempt when an OOM-killed attempt ran on the platform's estimate, below
     * the memory the task would have had without one (its user asked for none); 0 when it did not.
     * That kill is the platform's miss, not the user's: the next attempt gets at least that memory,
     * and it spends no budget. Bounded: it applies only while the memory grows and stays below it.
     */
    public long afterEstimateMiss(TaskDefinition task, long memoryBytes, long largestNode) {
        long unestimated = task.getResources().getMemoryBytes();
        if (task.getMemoryRequested() || memoryBytes >= unestimated) return 0;
        long next = Math.max(grownMemory(memoryBytes, largestNode), largestNode > 0 ? Math.min(unestimated, largestNode) : unestimated);
        return next > memoryBytes ? next : 0;
    }

    /** Seconds to wait before user retry n (1-based): the task's backoff, doubled each time. */
    public long backoffSeconds(long baseSeconds, int retry) {
        if (baseSeconds <= 0) return 0;
        long delay = baseSeconds << Math.min(20, Math.max(0, retry - 1));
        return Math.min(delay, maxBackoffSeconds);
    }
}
