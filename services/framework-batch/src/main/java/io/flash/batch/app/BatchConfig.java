package io.flash.batch.app;

import io.flash.common.settings.FrameworkSettings;
import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;
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
