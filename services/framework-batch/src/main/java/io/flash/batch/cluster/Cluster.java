package io.flash.batch.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A batch cluster as the adapter needs it (Slurm or Grid Engine behind it): submit one job per
 * attempt, named after the attempt so that a restarted adapter finds its jobs again, see what the
 * cluster has of them, cancel one, and see what the cluster offers. Every call is bounded in time;
 * a controller that does not answer throws {@link Unreachable}.
 */
public interface Cluster {

    /** The controller did not answer (or its tools failed): the framework stops heartbeating. */
    final class Unreachable extends RuntimeException {
        public Unreachable(String message) {
            super(message);
        }
    }

    /** One attempt as a cluster job. */
    record JobSpec(String name, double cpus, long memoryBytes, Long timeLimitSeconds, String partition, String script,
                   String outputFile) {

        /** The cluster opens the output file before the script runs: its directory must exist (on the shared storage). */
        void createOutputDirectory() {
            try {
                Files.createDirectories(Path.of(outputFile).getParent());
            } catch (IOException e) {
                throw new Unreachable("cannot create " + outputFile + "'s directory on the shared storage: " + e.getMessage());
            }
        }
    }

    /** How far a job got, in the cluster's words and Flash's. */
    enum Phase { QUEUED, RUNNING, SUCCEEDED, FAILED, OUT_OF_MEMORY, TIMEOUT, NODE_LOST, PREEMPTED, CANCELLED }

    /** What the cluster says of one of Flash's jobs. */
    record Job(String id, String name, Phase phase, String state, Integer exitCode, String node, String reason) {
    }

    /** A partition (Slurm) or queue (Grid Engine) and what it offers now. */
    record Partition(String name, int nodesUp, double cpusTotal, double cpusIdle, long memoryTotal, long memoryFree,
                     Map<String, String> labels) {
    }

    /** @return the cluster's id for the new job */
    String submit(JobSpec spec);

    /** Flash's jobs the cluster knows (queued, running, and finished ones it still remembers), by job name. */
    Map<String, Job> jobs(List<String> names);

    void cancel(String jobId);

    List<Partition> partitions();
}
