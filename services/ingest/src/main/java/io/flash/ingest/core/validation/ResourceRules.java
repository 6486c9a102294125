package io.flash.ingest.core.validation;

import io.flash.common.units.Quantities;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.FieldError;
import io.flash.schema.NetworkMode;
import io.flash.schema.ResourceRequest;
import java.util.List;
import java.util.Locale;

import static io.flash.ingest.core.validation.Reasons.error;

/** A task's resources: units parsed, defaults filled in, each value within the platform's limits. */
final class ResourceRules {

    /** What a task asks for, normalised; whether cpu and memory were given (the planner estimates the rest). */
    record Resources(Capacity capacity, boolean cpuRequested, boolean memoryRequested, DiskType diskType, NetworkMode network) {
    }

    private ResourceRules() {
    }

    static Resources resources(ResourceRequest given, Limits limits, String path, List<FieldError> errors) {
        ResourceRequest req = given == null ? new ResourceRequest() : given;
        double cpu = cpu(req, limits, path, errors);
        long memory = memory(req, limits, path, errors);
        long disk = disk(req, path, errors);
        DiskType diskType = diskType(req, path, errors);
        NetworkMode network = network(req, path, errors);
        int gpus = req.getGpus() == null ? 0 : req.getGpus();
        if (gpus < 0 || gpus > Limits.MAX_GPUS) {
            errors.add(error(path + "resources.gpus", gpus + ": must be between 0 and " + Limits.MAX_GPUS));
        }
        return new Resources(new Capacity(cpu, memory, disk, gpus), req.getCpu() != null, req.getMemory() != null, diskType, network);
    }

    private static double cpu(ResourceRequest req, Limits limits, String path, List<FieldError> errors) {
        if (req.getCpu() == null) return limits.defaultCpu();
        double cpu = req.getCpu();
        if (!(cpu > 0)) {
            errors.add(error(path + "resources.cpu", cpu + " cores: must be more than 0 (fractions such as 0.5 are fine)"));
        } else if (cpu > limits.maxCpu()) {
            errors.add(error(path + "resources.cpu", cpu + " cores is more than the limit of " + limits.maxCpu()));
        }
        return cpu;
    }

    private static long memory(ResourceRequest req, Limits limits, String path, List<FieldError> errors) {
        if (req.getMemory() == null) return limits.defaultMemoryBytes();
        try {
            long memory = Quantities.bytes(req.getMemory());
            if (memory < Limits.MIN_MEMORY_BYTES) {
                errors.add(error(path + "resources.memory", "'" + req.getMemory() + "' is " + memory
                        + " bytes, below the minimum of 4Mi; did you mean " + req.getMemory().trim() + "Mi?"));
            } else if (memory > limits.maxMemoryBytes()) {
                errors.add(error(path + "resources.memory", "'" + req.getMemory() + "' is more than the limit of "
                        + Quantities.format(limits.maxMemoryBytes())));
            }
            return memory;
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "resources.memory", e.getMessage()));
            return limits.defaultMemoryBytes();
        }
    }

    private static long disk(ResourceRequest req, String path, List<FieldError> errors) {
        if (req.getDisk() == null) return 0;
        try {
            return Quantities.bytes(req.getDisk());
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "resources.disk", e.getMessage()));
            return 0;
        }
    }

    private static DiskType diskType(ResourceRequest req, String path, List<FieldError> errors) {
        if (req.getDiskType() == null) return DiskType.ANY;
        try {
            return DiskType.valueOf(req.getDiskType().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "resources.diskType", "'" + req.getDiskType() + "' is not one of ssd, hdd, any"));
            return DiskType.ANY;
        }
    }

    private static NetworkMode network(ResourceRequest req, String path, List<FieldError> errors) {
        if (req.getNetwork() == null) return NetworkMode.NONE;
        try {
            return NetworkMode.valueOf(req.getNetwork().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "resources.network", "'" + req.getNetwork() + "' is not one of none, bridge"));
            return NetworkMode.NONE;
        }
    }

    /** What no node of any framework could hold, said with the largest node there is (checked once a framework has reported). */
    static void fitsLargest(Capacity wanted, LargestNode largest, String path, List<FieldError> errors) {
        Capacity most = largest.capacity();
        if (wanted.getCpu() > most.getCpu() + 1e-9) {
            errors.add(error(path + "cpu", wanted.getCpu() + " cores is more than any node offers (largest: "
                    + most.getCpu() + " cores, on " + largest.cpuFramework() + ")"));
        }
        if (wanted.getDiskBytes() > most.getDiskBytes()) {
            errors.add(error(path + "disk", Quantities.format(wanted.getDiskBytes()) + " of disk is more than any "
                    + "node offers (largest: " + Quantities.format(most.getDiskBytes()) + ")"));
        }
        if (wanted.getGpus() > most.getGpus()) {
            errors.add(error(path + "gpus", wanted.getGpus() + " GPUs is more than any node offers (largest: " + most.getGpus() + ")"));
        }
        if (wanted.getMemoryBytes() > most.getMemoryBytes()) {
            errors.add(error(path + "memory", Quantities.format(wanted.getMemoryBytes())
                    + " is more than any node offers (largest: " + Quantities.format(most.getMemoryBytes())
                    + ", on " + largest.memoryFramework() + ")"));
        }
    }
}
