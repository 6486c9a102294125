package io.flash.batch.app;

import io.flash.common.settings.FrameworkSettings;
import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * framework-batch's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface BatchConfig {

    RegistrySettings registry();

    FrameworkSettings framework();

    Batch batch();

    interface Batch {
        /** The cluster's kind: slurm, gridengine (sge) or kubernetes (FLASH_BATCH_CLUSTER). */
        String cluster();

        /** The longest a cluster command (sbatch, squeue, qsub, qstat...) may take. */
        Duration callTimeout();

        /** The most cluster commands the worker carries out between two commits (and two looks, when the cluster is slow). */
        int commandsPerBatch();

        /** How often the worker lists the job scripts' ended marks: a new one brings the next look at the cluster forward. */
        Duration watchInterval();

        /** How long the controller may leave looks unanswered before the framework counts as down (slow until then). */
        Duration downAfter();

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

        Kubernetes kubernetes();
    }

    /** flash.batch.cluster=kubernetes: one pod per attempt (docs/frameworks.md). */
    interface Kubernetes {
        /** The namespace Flash's pods run in (FLASH_K8S_NAMESPACE). */
        String namespace();

        /** The ReadWriteMany claim with the jobs' workspaces, mounted in this adapter at the work root (FLASH_K8S_WORKSPACE_CLAIM). */
        String workspaceClaim();

        /** Price per hour of each instance type on demand, by its node.kubernetes.io/instance-type; a type not listed is unpriced. */
        Map<String, Double> onDemandPrices();

        /** Price per hour of each instance type on spot. */
        Map<String, Double> spotPrices();

        /** Cpus the cluster's own autoscaler may still add beyond its nodes (its NodePool limit); 0: only the nodes there are. */
        double elasticCpus();

        /** Memory the cluster's own autoscaler may still add, as a Kubernetes quantity (64Gi). */
        String elasticMemory();

        /** How long a cancelled pod may take to stop before the kubelet kills it. */
        Duration stopGrace();
    }

    interface Gridengine {
        /** The parallel environment for multi-cpu tasks (FLASH_BATCH_GRIDENGINE_PE); none when unset. */
        Optional<String> parallelEnvironment();
    }
}
