package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.flash.batch.cluster.Cluster;
import io.flash.common.cost.Costs;
import io.flash.schema.Capacity;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.*;
import java.util.function.Supplier;

/**
 * Kubernetes as a batch cluster: one pod per attempt ({@link PodManifests}), found again by the
 * attempt id it carries, read through {@link PodPhases}, deleted to cancel it and once Flash has
 * read its end. The nodes, grouped spot / on-demand, and the room the cluster's autoscaler may
 * still add are the partitions; a node's price comes from its instance-type label. Every call
 * goes to the API server through the fabric8 client, bounded by its request timeout; an API
 * server that does not answer (or refuses Flash's service account) is {@link Cluster.Unreachable}.
 */
public final class Kubernetes implements Cluster {

    private static final int HTTP_UNPROCESSABLE = 422;
    private final KubernetesClient client;
    private final KubernetesSettings settings;
    private final Path workRoot;
    /** The nodes as last listed: a pod's node's capacity type and price, without a call per pod. */
    private Map<String, Node> nodes = Map.of();

    public Kubernetes(KubernetesClient client, KubernetesSettings settings, Path workRoot) {
        this.client = client;
        this.settings = settings;
        this.workRoot = workRoot;
    }

    @Override
    public String submit(JobSpec spec) {
        Pod pod = PodManifests.pod(settings, spec);
        prepareWorkspace(spec.container().workspaceSubPath());
        return call(() -> {
            try {
                client.pods().inNamespace(settings.namespace()).resource(pod).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HTTP_UNPROCESSABLE || e.getCode() == HttpURLConnection.HTTP_BAD_REQUEST) {
                    throw new Rejected("the Kubernetes API server refused the pod (HTTP " + e.getCode() + "): " + e.getMessage());
                }
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) throw e; // 409: submitted before a restart, adopted
            }
            return pod.getMetadata().getName();
        });
    }

    /** The pod runs as user 65534 on the shared claim, which this adapter mounts at the work root: the job's folder must let it write. */
    private void prepareWorkspace(String subPath) {
        Path workspace = workRoot.resolve(subPath);
        try {
            Files.createDirectories(workspace);
            Files.setPosixFilePermissions(workspace, PosixFilePermissions.fromString("rwxrwxrwx"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new Unreachable("cannot prepare " + workspace + " on the workspace claim " + settings.workspaceClaim() + ": " + e.getMessage());
        }
    }

    @Override
    public List<Job> jobs(String prefix, Collection<String> names) {
        List<Pod> pods = call(() -> client.pods().inNamespace(settings.namespace())
                .withLabel(PodManifests.FRAMEWORK_LABEL, PodManifests.labelValue(settings.frameworkId())).list().getItems());
        List<Job> found = new ArrayList<>(); // a pod stays until deleted: finished ones are listed like the rest
        for (Pod pod : pods) {
            String name = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(PodManifests.ATTEMPT_ANNOTATION);
            if (name == null || !name.startsWith(prefix)) continue;
            String nodeName = pod.getSpec().getNodeName();
            Node node = nodeName == null ? null : node(nodeName);
            PodPhases.Read read = PodPhases.read(pod, node == null ? null : PodManifests.spot(labels(node)));
            found.add(new Job(pod.getMetadata().getName(), name, read.phase(), read.state(), read.exitCode(), nodeName,
                    read.reason(), node == null ? null : costPerHour(pod, node)));
        }
        return found;
    }

    /** A node from the last listing, listed again when a pod names one it does not have (a node just added). */
    private Node node(String name) {
        if (!nodes.containsKey(name)) refreshNodes();
        return nodes.get(name);
    }

    private List<Node> refreshNodes() {
        List<Node> all = call(() -> client.nodes().list().getItems());
        Map<String, Node> byName = new HashMap<>();
        for (Node n : all) byName.put(n.getMetadata().getName(), n);
        nodes = byName;
        return all;
    }

    /** The pod's share of its node's price (docs/cost.md); null when the node's instance type has no price. */
    private Double costPerHour(Pod pod, Node node) {
        Map<String, String> labels = labels(node);
        Map<String, Double> prices = PodManifests.spot(labels) ? settings.spotPrices() : settings.onDemandPrices();
        Double price = prices.get(labels.get(KubernetesSettings.INSTANCE_TYPE));
        if (price == null) return null;
        Map<String, Quantity> requests = pod.getSpec().getContainers().get(0).getResources().getRequests();
        return Costs.perHour(price, capacity(requests), capacity(node.getStatus().getAllocatable()));
    }

    @Override
    public void cancel(String podName) {
        delete(podName);
    }

    @Override
    public void forget(String podName) {
        delete(podName);
    }

    private void delete(String podName) {
        call(() -> client.pods().inNamespace(settings.namespace()).withName(podName)
                .withGracePeriod(settings.stopGrace().toSeconds()).delete());
    }

    /**
     * The ready, schedulable nodes as two partitions, spot and on-demand, each with what its pods
     * have not requested yet; and, when the cluster's autoscaler may add more, that room as a
     * third ("autoscaled"), so the dispatcher sends work to a cluster that has scaled to zero.
     */
    @Override
    public List<Partition> partitions() {
        List<Node> all = refreshNodes();
        List<Pod> running = call(() -> client.pods().inAnyNamespace().withoutField("status.phase", "Succeeded")
                .withoutField("status.phase", "Failed").list().getItems());
        Map<String, double[]> requested = new HashMap<>(); // node → {cpu, memory}
        for (Pod p : running) {
            if (p.getSpec().getNodeName() == null || isEnded(p)) continue;
            double[] r = requested.computeIfAbsent(p.getSpec().getNodeName(), k -> new double[2]);
            for (var c : p.getSpec().getContainers()) {
                if (c.getResources() == null || c.getResources().getRequests() == null) continue;
                Capacity need = capacity(c.getResources().getRequests());
                r[0] += need.getCpu();
                r[1] += need.getMemoryBytes();
            }
        }
        Map<String, double[]> byType = new TreeMap<>(); // type → {nodes, cpu, cpu free, memory, memory free}
        for (Node n : all) {
            if (!ready(n)) continue;
            Capacity size = capacity(n.getStatus().getAllocatable());
            double[] used = requested.getOrDefault(n.getMetadata().getName(), new double[2]);
            double[] t = byType.computeIfAbsent(PodManifests.spot(labels(n)) ? "spot" : "on-demand", k -> new double[5]);
            t[0]++;
            t[1] += size.getCpu();
            t[2] += Math.max(0, size.getCpu() - used[0]);
            t[3] += size.getMemoryBytes();
            t[4] += Math.max(0, size.getMemoryBytes() - used[1]);
        }
        List<Partition> partitions = new ArrayList<>();
        byType.forEach((type, t) -> partitions.add(new Partition(type, (int) t[0], t[1], t[2], (long) t[3], (long) t[4],
                Map.of("capacity-type", type))));
        if (settings.elasticCpus() > 0 && settings.elasticMemoryBytes() > 0) {
            partitions.add(new Partition("autoscaled", 1, settings.elasticCpus(), settings.elasticCpus(), settings.elasticMemoryBytes(),
                    settings.elasticMemoryBytes(), Map.of("capacity-type", "autoscaled")));
        }
        return partitions;
    }

    private static boolean isEnded(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static boolean ready(Node n) {
        if (n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable())) return false;
        if (n.getStatus() == null || n.getStatus().getConditions() == null) return false;
        for (NodeCondition c : n.getStatus().getConditions()) if ("Ready".equals(c.getType())) return "True".equals(c.getStatus());
        return false;
    }

    private static Map<String, String> labels(Node n) {
        return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }

    static Capacity capacity(Map<String, Quantity> resources) {
        if (resources == null) return new Capacity(0.0, 0L, 0L, 0);
        Quantity cpu = resources.get("cpu"), memory = resources.get("memory"), gpus = resources.get("nvidia.com/gpu");
        return new Capacity(cpu == null ? 0.0 : cpu.getNumericalAmount().doubleValue(),
                memory == null ? 0L : Quantity.getAmountInBytes(memory).longValue(), 0L,
                gpus == null ? 0 : gpus.getNumericalAmount().intValue());
    }

    private static <T> T call(Supplier<T> call) {
        try {
            return call.get();
        } catch (KubernetesClientException e) {
            throw new Unreachable("the Kubernetes API server: " + (e.getCode() > 0 ? "HTTP " + e.getCode() + " " : "") + e.getMessage());
        }
    }
}
