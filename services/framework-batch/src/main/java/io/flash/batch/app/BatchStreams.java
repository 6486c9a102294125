package io.flash.batch.app;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.GridEngine;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.Slurm;
import io.flash.batch.core.BatchSettings;
import io.flash.batch.kafka.BatchTopology;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.settings.FrameworkSettings;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.DiskType;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/** Hands the batch framework's topology to Quarkus, with the cluster it serves (its topics: common-quarkus FrameworkTopicsBootstrap). */
@ApplicationScoped
public class BatchStreams {

    @Produces
    Topology topology(BatchConfig config) {
        FrameworkSettings fw = config.framework();
        BatchConfig.Batch batch = config.batch();
        JobScripts scripts = new JobScripts(fw.id(), Path.of(batch.workRoot()), batch.pidsPerCpu());
        BatchSettings settings = new BatchSettings(fw.id(), fw.acceptLimit(), batch.forgetAfter(), fw.fenceAfterAbsence(),
                DiskType.valueOf(batch.diskType().toUpperCase(Locale.ROOT)), batch.network());
        return BatchTopology.build(new FlashTopics(new RegistryValueSerdes(config.registry().url())), settings, fw.tick(),
                cluster(batch), scripts, new FileWorkspaces(scripts), Clock.systemUTC());
    }

    private static Cluster cluster(BatchConfig.Batch batch) {
        return switch (batch.cluster().toLowerCase(Locale.ROOT)) {
            case "slurm" -> new Slurm(batch.callTimeout());
            case "gridengine", "sge" -> new GridEngine(batch.callTimeout(), batch.gridengine().parallelEnvironment().orElse(null));
            default -> throw new IllegalArgumentException("flash.batch.cluster=" + batch.cluster() + ": write slurm or gridengine");
        };
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
