package io.flash.batch.app;

import io.smallrye.config.ConfigMapping;

import java.time.Duration;
import java.util.Optional;

/**
 * framework-batch's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface BatchConfig {

    Registry registry();

    Framework framework();

    Batch batch();

    interface Registry {
        /** The schema registry (FLASH_REGISTRY_URL). */
        String url();
    }

    interface Framework {
        /** The framework's name: its topics are flash.fw.&lt;id&gt;.* (FLASH_FRAMEWORK_ID). */
        String id();

        /** Scheduling shards: partitions of its tasks topic, when it creates it. */
        int shards();

        /** Partitions of its assignments topic, when it creates it. */
        int assignmentPartitions();

        /** How often a shard polls the cluster and heartbeats. */
        Duration tick();

        /** Dispatched but unsubmitted attempts one shard accepts (back-pressure to the dispatcher). */
        int acceptLimit();

        /** A shard that did not tick for longer reports what it had not submitted instead of submitting it. */
        Duration fenceAfterAbsence();

        /** Whether this build creates the framework's topics on start (a build-time setting). */
        boolean createsTopics();
    }

    interface Batch {
        /** The cluster's kind: slurm, or gridengine (sge) (FLASH_BATCH_CLUSTER). */
        String cluster();

        /** The longest a cluster command (sbatch, squeue, qsub, qstat...) may take. */
        Duration callTimeout();

        /** How long a finished job is remembered for a late report. */
        Duration forgetAfter();

        /** Where attempts' job scripts and workspaces live, shared with the cluster's nodes (FLASH_WORK_ROOT). */
        String workRoot();

        /** The disk type the cluster's nodes offer (FLASH_BATCH_DISK_TYPE). */
        String diskType();

        /** Whether its nodes reach the network (FLASH_BATCH_NETWORK). */
        boolean network();

        /** Processes a task may run per cpu it asks for. */
        int pidsPerCpu();

        Gridengine gridengine();
    }

    interface Gridengine {
        /** The parallel environment for multi-cpu tasks (FLASH_BATCH_GRIDENGINE_PE); none when unset. */
        Optional<String> parallelEnvironment();
    }
}
