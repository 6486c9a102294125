package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.flash.batch.cluster.Cluster.Phase;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A pod's status in Flash's terms. The container's own end decides where there is one (exit 0,
 * an exit code, OOMKilled); the pod's reason where the kubelet ended it (DeadlineExceeded: the
 * task's timeout); a {@code DisruptionTarget} condition where the cluster took it away — preempted
 * by the scheduler, or its node drained, tainted, shut down or gone: a spot loss when it was (or
 * may have been) on spot, a node loss otherwise. An image that cannot be pulled is the user's
 * mistake, as on Flash's own nodes, and ends the attempt rather than wait for ever.
 */
final class PodPhases {

    /** Why the container waits, when the wait will not end by itself. */
    private static final Set<String> HOPELESS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError",
            "CreateContainerError");

    record Read(Phase phase, String state, Integer exitCode, String reason) {
    }

    private PodPhases() {
    }

    /** @param onSpot whether the pod's node is spot capacity: null when the node is gone and no one can say */
    static Read read(Pod pod, Boolean onSpot) {
        String phase = pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
        Optional<PodCondition> disruption = condition(pod, "DisruptionTarget");
        Optional<ContainerStateTerminated> ended = containerStatus(pod).map(s -> s.getState() == null ? null : s.getState().getTerminated());
        if (disruption.isPresent() && !"Succeeded".equals(phase)) {
            String why = disruption.get().getReason();
            String state = "DisruptionTarget " + why + (disruption.get().getMessage() == null ? "" : ": " + disruption.get().getMessage());
            if ("PreemptionByScheduler".equals(why)) return new Read(Phase.PREEMPTED, state, null, null);
            boolean spot = onSpot != null ? onSpot : spotAllowed(pod);
            return new Read(spot ? Phase.SPOT_LOST : Phase.NODE_LOST, state, null, null);
        }
        return switch (phase) {
            case "Pending" -> waiting(pod);
            case "Running" -> new Read(Phase.RUNNING, phase, null, null);
            case "Succeeded" -> new Read(Phase.SUCCEEDED, phase, ended.map(ContainerStateTerminated::getExitCode).orElse(0), null);
            case "Failed" -> failed(pod, ended.orElse(null));
            default -> new Read(Phase.QUEUED, phase, null, null); // Unknown: the node does not answer for now
        };
    }

    private static Read waiting(Pod pod) {
        Optional<ContainerStateWaiting> waiting = containerStatus(pod).map(s -> s.getState() == null ? null : s.getState().getWaiting());
        if (waiting.isPresent() && HOPELESS.contains(waiting.get().getReason())) {
            String why = waiting.get().getReason() + (waiting.get().getMessage() == null ? "" : ": " + waiting.get().getMessage());
            return new Read(Phase.FAILED, "Pending " + why, null, "Kubernetes cannot start its container (" + why
                    + "); check the image name and that the cluster may pull it");
        }
        return new Read(Phase.QUEUED, "Pending", null, null);
    }

    private static Read failed(Pod pod, ContainerStateTerminated ended) {
        String podReason = pod.getStatus().getReason();
        if ("DeadlineExceeded".equals(podReason)) return new Read(Phase.TIMEOUT, "Failed DeadlineExceeded", null, null);
        if (ended == null) { // the kubelet ended the pod, not its program: evicted, node shut down, rejected at admission
            return new Read(Phase.NODE_LOST, "Failed " + Objects.requireNonNullElse(podReason, "without a container status"), null, null);
        }
        if ("OOMKilled".equals(ended.getReason())) return new Read(Phase.OUT_OF_MEMORY, "Failed OOMKilled", ended.getExitCode(), null);
        return new Read(Phase.FAILED, "Failed " + Objects.requireNonNullElse(ended.getReason(), "Error"), ended.getExitCode(), null);
    }

    static boolean spotAllowed(Pod pod) {
        return Boolean.parseBoolean(pod.getMetadata().getAnnotations().getOrDefault(PodManifests.SPOT_ANNOTATION, "false"));
    }

    private static Optional<PodCondition> condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) return Optional.empty();
        return pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    private static Optional<ContainerStatus> containerStatus(Pod pod) {
        if (pod.getStatus() == null) return Optional.empty();
        List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
        if (statuses == null) return Optional.empty();
        return statuses.stream().filter(s -> PodManifests.CONTAINER.equals(s.getName())).findFirst();
    }
}
