package io.flash.batch.shard;

/** What an attempt left in the job's workspace on the cluster's shared storage. */
public interface Workspaces {

    /** Whether the kernel killed the attempt's container for its memory (the job script leaves a mark). */
    boolean oomKilled(String jobId, String attemptId);

    /** The exit status the job script wrote when the container ended, or null (still running, or the script never got there). */
    Integer exitStatus(String jobId, String attemptId);

    /** The end of the attempt's output, or null. */
    String tail(String jobId, String attemptId);
}
