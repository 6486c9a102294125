package io.flash.batch.app;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.GridEngine;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.Slurm;
import io.flash.batch.core.BatchSettings;
import io.flash.batch.core.JobSpecs;
import io.flash.batch.core.Workspaces;
import io.flash.batch.kubernetes.Kubernetes;
import io.flash.batch.kubernetes.KubernetesSettings;
import io.flash.batch.kubernetes.PodLogs;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.flash.batch.kafka.BatchTopology;
import io.flash.batch.core.ClusterWorker;
import io.flash.batch.kafka.ClusterWorkerLoop;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.settings.FrameworkSettings;
import io.flash.common.streams.StuckThreadWatch;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.DiskType;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Hands the batch framework's topology to Quarkus, and starts its cluster worker beside it (its
 * topics: common-quarkus FrameworkTopicsBootstrap): the shards decide on the stream threads, the
 * worker makes the cluster calls on its own.
 */
@ApplicationScoped
public class BatchStreams {

    /** What the topology and the worker share: the cluster, where its jobs leave their files, how a job is made. */
    private record Parts(BatchSettings settings, Cluster cluster, Workspaces workspaces, JobScripts scripts,
                         ClusterWorker.EndedMarks endedMarks, ClusterWorker.StartedMarks startedMarks) {
    }

    private Parts parts;
    private ClusterWorkerLoop worker;

    private synchronized Parts parts(BatchConfig config) {
        if (parts != null) return parts;
        FrameworkSettings fw = config.framework();
        BatchConfig.Batch batch = config.batch();
        JobScripts scripts = new JobScripts(fw.id(), Path.of(batch.workRoot()), batch.pidsPerCpu());
        BatchSettings settings = new BatchSettings(fw.id(), fw.acceptLimit(), batch.forgetAfter(), fw.fenceAfterAbsence(),
                batch.downAfter(), fw.tick(), DiskType.valueOf(batch.diskType().toUpperCase(Locale.ROOT)), batch.network());
        Workspaces files = new FileWorkspaces(scripts);
        if (batch.cluster().equalsIgnoreCase("kubernetes")) {
            BatchConfig.Kubernetes k8s = batch.kubernetes();
            KubernetesClient client = kubernetesClient(batch.callTimeout());
            KubernetesSettings ks = new KubernetesSettings(fw.id(), k8s.namespace(), k8s.workspaceClaim(), k8s.onDemandPrices(),
                    k8s.spotPrices(), k8s.elasticCpus(), Quantity.getAmountInBytes(new Quantity(k8s.elasticMemory())).longValue(), k8s.stopGrace());
            parts = new Parts(settings, new Kubernetes(client, ks, Path.of(batch.workRoot())), new PodLogs(client, k8s.namespace(), files), scripts,
                    ClusterWorker.EndedMarks.NONE, ClusterWorker.StartedMarks.NONE);
        } else {
            parts = new Parts(settings, cluster(batch), files, scripts, new FileEndedMarks(scripts.endedMarks()), new FileStartedMarks(scripts));
        }
        return parts;
    }

    @Produces
    Topology topology(BatchConfig config) {
        Parts p = parts(config);
        return BatchTopology.build(topics(config), p.settings(), config.framework().tick(), p.workspaces(), Clock.systemUTC());
    }

    private static FlashTopics topics(BatchConfig config) {
        return new FlashTopics(new RegistryValueSerdes(config.registry().url()));
    }

    private static Cluster cluster(BatchConfig.Batch batch) {
        return switch (batch.cluster().toLowerCase(Locale.ROOT)) {
            case "slurm" -> new Slurm(batch.callTimeout());
            case "gridengine", "sge" -> new GridEngine(batch.callTimeout(), batch.gridengine().parallelEnvironment().orElse(null));
            default -> throw new IllegalArgumentException("flash.batch.cluster=" + batch.cluster() + ": write slurm, gridengine or kubernetes");
        };
    }

    /** The cluster this adapter runs in (its service account), or the one the kubeconfig names; each call bounded like a cluster command. */
    private static KubernetesClient kubernetesClient(Duration callTimeout) {
        Config k8s = new ConfigBuilder().withRequestTimeout((int) callTimeout.toMillis()).withConnectionTimeout((int) callTimeout.toMillis())
                .withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(k8s).build();
    }

    /** A stream thread that stops polling says where it waits (StuckThreadWatch); the worker starts with the streams. */
    void start(@Observes StartupEvent start, KafkaStreams streams, BatchConfig config,
               @ConfigProperty(name = "quarkus.kafka-streams.bootstrap-servers") String bootstrapServers,
               @ConfigProperty(name = "kafka-streams.consumer.session.timeout.ms") long sessionTimeoutMs) {
        StuckThreadWatch.start(streams);
        Parts p = parts(config);
        worker = new ClusterWorkerLoop(topics(config), config.framework().id(), bootstrapServers, config.framework().tick(),
                config.batch().watchInterval(), Duration.ofMillis(sessionTimeoutMs), config.batch().commandsPerBatch(),
                new JobSpecs(p.scripts()), p.cluster(),
                p.endedMarks(), p.startedMarks(), Clock.systemUTC());
        worker.start();
    }

    void stop(@Observes ShutdownEvent stop) {
        if (worker != null) worker.close();
    }
}
