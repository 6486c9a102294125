package io.flash.batch.kubernetes;

import java.time.Duration;
import java.util.Map;

/**
 * How Flash uses a Kubernetes cluster (docs/frameworks.md): the namespace its pods run in, the
 * shared volume claim that holds the jobs' workspaces, the prices of the cluster's instance types
 * (per hour, on demand and on spot; a type not listed is unpriced), the room the cluster's own
 * autoscaler may still add beyond the nodes it has now (0: only the nodes there are), and how long
 * a cancelled pod may take to stop.
 */
public record KubernetesSettings(String frameworkId, String namespace, String workspaceClaim, Map<String, Double> onDemandPrices,
                                 Map<String, Double> spotPrices, double elasticCpus, long elasticMemoryBytes, Duration stopGrace) {

    /** The node label Karpenter puts on a node: spot or on-demand. */
    public static final String KARPENTER_CAPACITY_TYPE = "karpenter.sh/capacity-type";
    /** The node label EKS's managed node groups put on a node: SPOT or ON_DEMAND. */
    public static final String EKS_CAPACITY_TYPE = "eks.amazonaws.com/capacityType";
    /** The well-known label with the node's cloud instance type, the key of the price lists. */
    public static final String INSTANCE_TYPE = "node.kubernetes.io/instance-type";
}
