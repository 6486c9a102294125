package io.flash.batch.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * A batch cluster as the adapter needs it (Slurm, Grid Engine or Kubernetes behind it): submit one job per
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

    /**
     * One attempt's container, for a cluster that runs containers itself (Kubernetes) rather than a
     * job script that starts one: what the script's {@code docker run} says, as fields.
     */
    record Container(String jobId, String image, List<String> command, Map<String, String> env, String workdir,
                     boolean network, boolean spotAllowed, Long timeoutSeconds, String workspaceSubPath) {
    }

    /**
     * The cluster answered and refused this one job as invalid (Kubernetes' 400/422: a pod spec the
     * API server will not take, made from the task): the attempt's failure, not the cluster's silence.
     */
    final class Rejected extends RuntimeException {
        public Rejected(String message) {
            super(message);
        }
    }

    /** One attempt as a cluster job: a script for Slurm and Grid Engine, the same container as fields for Kubernetes. */
    record JobSpec(String name, double cpus, long memoryBytes, Long timeLimitSeconds, String partition, String script,
                   String outputFile, Container container) {

        public JobSpec(String name, double cpus, long memoryBytes, Long timeLimitSeconds, String partition, String script, String outputFile) {
            this(name, cpus, memoryBytes, timeLimitSeconds, partition, script, outputFile, null);
        }

        /** The cluster opens the output file before the script runs: its directory must exist (on the shared storage). */
        void createOutputDirectory() {
            try {
                Files.createDirectories(Path.of(outputFile).getParent());
            } catch (IOException e) {
                throw new Unreachable("cannot create " + outputFile + "'s directory on the shared storage: " + e.getMessage());
            }
        }
    }

    /**
     * Attempts of one shape as one job array ({@link ArrayNames}): each element's own spec by its
     * index, and where the elements' scripts and output go, with {@code %a} for the index.
     */
    record ArraySpec(String name, SortedMap<Integer, JobSpec> elements, String scriptFile, String outputFile) {
        public JobSpec shape() {
            return elements.get(elements.firstKey());
        }

        /** Each element's script to its file and the output directory, on the shared storage, before the one submission. */
        void writeScripts() {
            shape().createOutputDirectory();
            elements.forEach((index, element) -> {
                Path file = Path.of(scriptFile.replace("%a", index.toString()));
                try {
                    Files.createDirectories(file.getParent());
                    Files.writeString(file, element.script());
                } catch (IOException e) {
                    throw new Unreachable("cannot write " + file + " on the shared storage: " + e.getMessage());
                }
            });
        }
    }

    /** How far a job got, in the cluster's words and Flash's. */
    enum Phase { QUEUED, RUNNING, SUCCEEDED, FAILED, OUT_OF_MEMORY, TIMEOUT, NODE_LOST, SPOT_LOST, PREEMPTED, CANCELLED }

    /**
     * What the cluster says of one of Flash's jobs; {@code costPerHour} is what it costs per hour on
     * its node (docs/cost.md), null where the cluster has no prices.
     */
    record Job(String id, String name, Phase phase, String state, Integer exitCode, String node, String reason, Double costPerHour) {
        public Job(String id, String name, Phase phase, String state, Integer exitCode, String node, String reason) {
            this(id, name, phase, state, exitCode, node, reason, null);
        }
    }

    /** A partition (Slurm) or queue (Grid Engine) and what it offers now. */
    record Partition(String name, int nodesUp, double cpusTotal, double cpusIdle, long memoryTotal, long memoryFree,
                     Map<String, String> labels) {
    }

    /** @return the cluster's id for the new job */
    String submit(JobSpec spec);

    /** The highest element index this cluster's job arrays take; -1 where it has none (each attempt is its own job). */
    default int maxArrayIndex() {
        return -1;
    }

    /**
     * Submits an array: one controller call for many attempts. Each element is listed by
     * {@link #jobs} under its own name ({@link ArrayNames#element}) and cancelled by its own id.
     *
     * @return each element's id, by index
     */
    default Map<Integer, String> submitArray(ArraySpec spec) {
        throw new UnsupportedOperationException("this cluster has no job arrays");
    }

    /**
     * Flash's jobs the cluster knows, in one look: every job whose name starts with {@code prefix}
     * that it lists (queued and running, and the finished ones a cluster lists for a while), and
     * those of {@code names} it no longer lists but still remembers as finished (Grid Engine's
     * accounting). A name can appear twice: a submission repeated after an adapter died mid-call.
     */
    List<Job> jobs(String prefix, Collection<String> names);

    void cancel(String jobId);

    /**
     * Flash has read a finished job's end and output: a cluster that keeps finished jobs until told
     * (Kubernetes keeps a pod until it is deleted) lets it go; Slurm and Grid Engine purge their own.
     */
    default void forget(String jobId) {
    }

    List<Partition> partitions();
}
