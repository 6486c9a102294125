package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.api.model.*;
import io.flash.batch.cluster.Cluster;
import io.flash.batch.core.ClusterNames;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One attempt as one pod: the task's cpu and memory as requests equal to limits (the Guaranteed
 * class, so the kubelet evicts it last), the executor's sandbox as the security context (user
 * 65534, read-only root, no capabilities, no privilege escalation, the runtime's seccomp profile),
 * the job's workspace from the shared claim at /workspace and a scratch /tmp, the task's timeout
 * as the pod's deadline, and spot or on-demand through the node pools' capacity-type labels so
 * the cluster's own autoscaler (Karpenter, a managed node group) brings the right machine.
 */
public final class PodManifests {

    /** Labels and annotations Flash puts on its pods. */
    public static final String FRAMEWORK_LABEL = "flash.io/framework", NETWORK_LABEL = "flash.io/network",
            ATTEMPT_ANNOTATION = "flash.io/attempt", JOB_ANNOTATION = "flash.io/job", SPOT_ANNOTATION = "flash.io/spot-allowed";
    static final String CONTAINER = "task";
    private static final long USER = 65534;

    private PodManifests() {
    }

    /**
     * A pod name from an attempt id: Kubernetes names are lower-case DNS labels, attempt ids are
     * not, so the readable part is cleaned and cut and a hash of the whole id keeps it unique.
     */
    public static String podName(String attemptId) {
        String readable = attemptId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
        if (readable.length() > 40) readable = readable.substring(0, 40).replaceAll("-+$", "");
        return "flash-" + (readable.isEmpty() ? "" : readable + "-") + hash(attemptId);
    }

    /** The pod is named after the attempt, not the whole job name, so its logs are found from the attempt alone (PodLogs). */
    private static String attempt(KubernetesSettings settings, Cluster.JobSpec spec) {
        String attempt = ClusterNames.attemptOf(settings.frameworkId(), spec.name());
        return attempt != null ? attempt : spec.name();
    }

    public static Pod pod(KubernetesSettings settings, Cluster.JobSpec spec) {
        Cluster.Container c = spec.container();
        Quantity cpu = new Quantity(Long.toString(Math.max(1, Math.round(spec.cpus() * 1000))) + "m");
        Quantity memory = new Quantity(Long.toString(spec.memoryBytes()));
        Map<String, Quantity> resources = Map.of("cpu", cpu, "memory", memory);
        List<EnvVar> env = new ArrayList<>(c.env().entrySet().stream().map(e -> new EnvVar(e.getKey(), e.getValue(), null)).toList());
        env.add(new EnvVarBuilder().withName("FLASH_NODE_ID").withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName")
                .endFieldRef().endValueFrom().build());
        return new PodBuilder()
                .withNewMetadata().withName(podName(attempt(settings, spec))).withNamespace(settings.namespace())
                .addToLabels(FRAMEWORK_LABEL, labelValue(settings.frameworkId()))
                .addToLabels(NETWORK_LABEL, c.network() ? "bridge" : "none") // infra/k8s's NetworkPolicy isolates "none"
                .addToAnnotations(ATTEMPT_ANNOTATION, spec.name()).addToAnnotations(JOB_ANNOTATION, c.jobId())
                .addToAnnotations(SPOT_ANNOTATION, Boolean.toString(c.spotAllowed()))
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never").withAutomountServiceAccountToken(false).withEnableServiceLinks(false)
                .withActiveDeadlineSeconds(c.timeoutSeconds())
                .withTerminationGracePeriodSeconds(settings.stopGrace().toSeconds())
                .withNewSecurityContext().withRunAsUser(USER).withRunAsGroup(USER).withRunAsNonRoot(true).withFsGroup(USER)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().endSecurityContext()
                .withAffinity(capacityType(c.spotAllowed()))
                .addNewContainer().withName(CONTAINER).withImage(c.image()).withArgs(c.command()).withEnv(env).withWorkingDir(c.workdir())
                .withNewResources().withRequests(resources).withLimits(resources).endResources()
                .withNewSecurityContext().withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true).withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
                .addNewVolumeMount().withName("workspace").withMountPath("/workspace").withSubPath(c.workspaceSubPath()).endVolumeMount()
                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("workspace").withNewPersistentVolumeClaim().withClaimName(settings.workspaceClaim())
                .endPersistentVolumeClaim().endVolume()
                .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec().build();
    }

    /**
     * Spot forbidden: required on a node that is not spot by either label (a node with neither
     * label is on-demand). Spot allowed: spot preferred, as it is the cheaper, not required.
     */
    static Affinity capacityType(boolean spotAllowed) {
        if (!spotAllowed) {
            return new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm()
                    .addNewMatchExpression().withKey(KubernetesSettings.KARPENTER_CAPACITY_TYPE).withOperator("NotIn").withValues("spot").endMatchExpression()
                    .addNewMatchExpression().withKey(KubernetesSettings.EKS_CAPACITY_TYPE).withOperator("NotIn").withValues("SPOT").endMatchExpression()
                    .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build();
        }
        return new AffinityBuilder().withNewNodeAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100).withNewPreference()
                .addNewMatchExpression().withKey(KubernetesSettings.KARPENTER_CAPACITY_TYPE).withOperator("In").withValues("spot").endMatchExpression()
                .endPreference().endPreferredDuringSchedulingIgnoredDuringExecution()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100).withNewPreference()
                .addNewMatchExpression().withKey(KubernetesSettings.EKS_CAPACITY_TYPE).withOperator("In").withValues("SPOT").endMatchExpression()
                .endPreference().endPreferredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity().build();
    }

    /** Whether a node is spot capacity, by Karpenter's or EKS's label. */
    static boolean spot(Map<String, String> nodeLabels) {
        return "spot".equals(nodeLabels.get(KubernetesSettings.KARPENTER_CAPACITY_TYPE))
                || "SPOT".equals(nodeLabels.get(KubernetesSettings.EKS_CAPACITY_TYPE));
    }

    static String labelValue(String value) {
        String clean = value.replaceAll("[^A-Za-z0-9_.-]", "-");
        return clean.length() <= 63 ? clean : clean.substring(0, 52) + "-" + hash(value);
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
