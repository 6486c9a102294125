package io.flash.common.settings;

import io.flash.common.cost.NodeClasses;
import io.flash.common.units.Quantities;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.NodeClass;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * flash.capacity.*: a framework's catalogue of node classes and their prices (docs/cost.md), e.g.
 * {@code flash.capacity.classes.small.cpu=2}. Prices are per node and hour, in the one currency the
 * operator chooses for all of them.
 */
public interface CapacitySettings {

    /** The node classes by name. */
    Map<String, NodeClassSettings> classes();

    /** Whether an autoscaler adds this framework's nodes as work waits (docs/autoscaling.md). */
    boolean elastic();

    interface NodeClassSettings {
        /** Cores one node of the class offers. */
        double cpu();

        /** Memory one node offers (e.g. 8Gi). */
        String memory();

        /** Scratch disk one node offers (e.g. 100Gi); none when unset. */
        Optional<String> disk();

        /** ssd or hdd; any when unset. */
        Optional<String> diskType();

        /** GPUs one node offers; none when unset. */
        Optional<Integer> gpus();

        /** Labels every node of the class has. */
        Map<String, String> labels();

        /** Price of one node for an hour on demand. */
        double onDemandPerHour();

        /** Price of one node for an hour on spot capacity. */
        double spotPerHour();

        /** Expected spot reclaims per node-hour; none when unset. */
        Optional<Double> interruptionsPerHour();
    }

    /** The catalogue, as frameworks use and report it. */
    default NodeClasses catalogue() {
        return new NodeClasses(classes().entrySet().stream().map(e -> nodeClass(e.getKey(), e.getValue())).toList(), elastic());
    }

    private static NodeClass nodeClass(String name, NodeClassSettings c) {
        return NodeClass.newBuilder().setName(name)
                .setCapacity(new Capacity(c.cpu(), Quantities.bytes(c.memory()), c.disk().map(Quantities::bytes).orElse(0L),
                        c.gpus().orElse(0)))
                .setDiskType(c.diskType().map(t -> diskType(name, t)).orElse(DiskType.ANY))
                .setLabels(Map.copyOf(c.labels()))
                .setOnDemandPerHour(c.onDemandPerHour()).setSpotPerHour(c.spotPerHour())
                .setInterruptionsPerHour(c.interruptionsPerHour().orElse(0.0))
                .build();
    }

    private static DiskType diskType(String className, String given) {
        try {
            return DiskType.valueOf(given.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("flash.capacity.classes." + className + ".disk-type: '" + given
                    + "' is not one of ssd, hdd, any");
        }
    }
}
