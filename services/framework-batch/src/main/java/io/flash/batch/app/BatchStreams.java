package io.flash.batch.app;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.GridEngine;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.Slurm;
import io.flash.batch.core.BatchSettings;
import io.flash.batch.kafka.BatchTopology;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.DiskType;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Hands the batch framework's topology to Quarkus, with the cluster it serves (its topics: common-quarkus FrameworkTopicsBootstrap). */
@ApplicationScoped
public class BatchStreams {

    @Produces
    Topology topology(@ConfigProperty(name = "flash.registry.url") String registryUrl,
                      @ConfigProperty(name = "flash.framework.id") String frameworkId,
                      @ConfigProperty(name = "flash.batch.cluster") String kind,
                      @ConfigProperty(name = "flash.batch.call-timeout") Duration callTimeout,
                      @ConfigProperty(name = "flash.framework.tick") Duration tick,
                      @ConfigProperty(name = "flash.framework.accept-limit") int acceptLimit,
                      @ConfigProperty(name = "flash.batch.forget-after") Duration forgetAfter,
                      @ConfigProperty(name = "flash.framework.fence-after-absence") Duration fenceAfterAbsence,
                      @ConfigProperty(name = "flash.batch.work-root") String workRoot,
                      @ConfigProperty(name = "flash.batch.disk-type") String diskType,
                      @ConfigProperty(name = "flash.batch.network") boolean network,
                      @ConfigProperty(name = "flash.batch.pids-per-cpu") int pidsPerCpu,
                      @ConfigProperty(name = "flash.batch.gridengine.parallel-environment") Optional<String> parallelEnvironment) {
        Cluster cluster = switch (kind.toLowerCase(Locale.ROOT)) {
            case "slurm" -> new Slurm(callTimeout);
            case "gridengine", "sge" -> new GridEngine(callTimeout, parallelEnvironment.orElse(null));
            default -> throw new IllegalArgumentException("flash.batch.cluster=" + kind + ": write slurm or gridengine");
        };
        JobScripts scripts = new JobScripts(frameworkId, Path.of(workRoot), pidsPerCpu);
        return BatchTopology.build(new FlashTopics(new RegistryValueSerdes(registryUrl)),
                new BatchSettings(frameworkId, acceptLimit, forgetAfter, fenceAfterAbsence, DiskType.valueOf(diskType.toUpperCase(Locale.ROOT)),
                        network), tick, cluster, scripts, new FileWorkspaces(scripts), Clock.systemUTC());
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch). */
    void watch(@Observes StartupEvent start, KafkaStreams streams) {
        StuckThreadWatch.start(streams);
    }
}
