package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.schema.NetworkMode;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskReady;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.flash.common.testing.Samples.ready;
import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

/** The pod an attempt becomes, on fabric8's model of the Kubernetes API. */
class PodManifestsTest {

    private final KubernetesSettings settings = new KubernetesSettings("k8s", "flash", "flash-work", Map.of(), Map.of(), 0, 0,
            Duration.ofSeconds(10));
    private final JobScripts scripts = new JobScripts("k8s", Path.of("/shared/flash"), 128);

    private Pod pod(TaskDefinition task) {
        TaskReady r = ready("J-1", task, 2);
        return PodManifests.pod(settings, new Cluster.JobSpec(r.getAttemptId(), task.getResources().getCpu(), task.getResources().getMemoryBytes(),
                null, null, null, null, scripts.container(r)));
    }

    @Test
    void theTasksResourcesAreRequestsEqualToLimitsAndItsSandboxTheSecurityContext() {
        TaskDefinition t = task("align");
        t.setTimeoutSeconds(600L);
        Pod pod = pod(t);
        Container c = pod.getSpec().getContainers().get(0);
        assertEquals(c.getResources().getRequests(), c.getResources().getLimits(), "Guaranteed: the last to be evicted");
        assertEquals(new Quantity("500m"), c.getResources().getRequests().get("cpu"));
        assertEquals(64L << 20, Quantity.getAmountInBytes(c.getResources().getRequests().get("memory")).longValue());
        assertEquals(65534L, pod.getSpec().getSecurityContext().getRunAsUser());
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertEquals("Never", pod.getSpec().getRestartPolicy());
        assertFalse(pod.getSpec().getAutomountServiceAccountToken(), "a task gets no credentials to the cluster");
        assertEquals(600L, pod.getSpec().getActiveDeadlineSeconds());
        assertEquals(List.of("/bin/sh", "-c", "echo align"), c.getArgs(), "the image's entrypoint stays, as with docker run");
        assertEquals("jobs/J-1", c.getVolumeMounts().get(0).getSubPath());
        assertEquals("flash-work", pod.getSpec().getVolumes().get(0).getPersistentVolumeClaim().getClaimName());
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("FLASH_ATTEMPT_ID") && e.getValue().equals("J-1.align.2")));
        assertEquals("none", pod.getMetadata().getLabels().get(PodManifests.NETWORK_LABEL));
    }

    @Test
    void spotNeverRequiresANodeThatIsNotSpotByEitherLabelAndSpotAllowedPrefersSpot() {
        TaskDefinition never = task("a");
        never.setSpotAllowed(false);
        var required = pod(never).getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        var expressions = required.getNodeSelectorTerms().get(0).getMatchExpressions();
        assertEquals(1, required.getNodeSelectorTerms().size(), "one term: both expressions must hold");
        assertEquals(Map.of(KubernetesSettings.KARPENTER_CAPACITY_TYPE, List.of("spot"), KubernetesSettings.EKS_CAPACITY_TYPE, List.of("SPOT")),
                Map.of(expressions.get(0).getKey(), expressions.get(0).getValues(), expressions.get(1).getKey(), expressions.get(1).getValues()));
        assertTrue(expressions.stream().allMatch(e -> e.getOperator().equals("NotIn")));
        TaskDefinition allowed = task("b");
        allowed.setNetwork(NetworkMode.BRIDGE);
        Pod pod = pod(allowed);
        assertNull(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
        assertEquals(2, pod.getSpec().getAffinity().getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().size());
        assertEquals("bridge", pod.getMetadata().getLabels().get(PodManifests.NETWORK_LABEL));
    }

    @Test
    void podNamesAreValidKubernetesNamesAndDistinctForDistinctAttempts() {
        for (String id : List.of("J-1.align.2", "job_ABC.Task With Spaces.1", "x".repeat(300) + ".t.1", "x".repeat(300) + ".t.2")) {
            String name = PodManifests.podName(id);
            assertTrue(name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?") && name.length() <= 63, name);
        }
        assertNotEquals(PodManifests.podName("x".repeat(300) + ".t.1"), PodManifests.podName("x".repeat(300) + ".t.2"));
        assertNotEquals(PodManifests.podName("a.b.1"), PodManifests.podName("A.b.1"));
    }

    @Test
    void thePodSurvivesTheRoundTripThroughTheApisJson() {
        Pod pod = pod(task("a"));
        assertEquals(pod, Serialization.unmarshal(Serialization.asJson(pod), Pod.class));
    }
}
