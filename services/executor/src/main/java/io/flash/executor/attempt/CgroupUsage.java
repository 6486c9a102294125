package io.flash.executor.attempt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads a container's memory and cpu use from its cgroup on this host (v1 or v2, cgroupfs or
 * systemd driver). The engine's stats API answers empty under some runtimes (gVisor), the cgroup
 * files do not; they vanish when the container stops, so callers sample while it runs.
 */
public final class CgroupUsage {

    /** One reading: memory now, the cgroup's own peak, cpu seconds used. */
    public record Reading(long memoryBytes, long peakMemoryBytes, double cpuSeconds) {
    }

    private final Path root;

    public CgroupUsage(Path root) {
        this.root = root;
    }

    public Optional<Reading> read(String containerId) {
        try {
            Path v1Memory = firstExisting(List.of(root.resolve("memory/docker/" + containerId),
                    root.resolve("memory/system.slice/docker-" + containerId + ".scope")));
            if (v1Memory != null) {
                Path cpuacct = firstExisting(List.of(root.resolve("cpuacct/docker/" + containerId),
                        root.resolve("cpu,cpuacct/docker/" + containerId),
                        root.resolve("cpuacct/system.slice/docker-" + containerId + ".scope")));
                long usage = number(v1Memory.resolve("memory.usage_in_bytes"));
                long peak = number(v1Memory.resolve("memory.max_usage_in_bytes"));
                double cpu = cpuacct == null ? 0 : number(cpuacct.resolve("cpuacct.usage")) / 1e9;
                return Optional.of(new Reading(usage, Math.max(peak, usage), cpu));
            }
            Path v2 = firstExisting(List.of(root.resolve("system.slice/docker-" + containerId + ".scope"),
                    root.resolve("docker/" + containerId)));
            if (v2 != null) {
                long usage = number(v2.resolve("memory.current"));
                long peak = Files.exists(v2.resolve("memory.peak")) ? number(v2.resolve("memory.peak")) : usage;
                double cpu = 0;
                for (String line : Files.readAllLines(v2.resolve("cpu.stat"))) {
                    if (line.startsWith("usage_usec ")) cpu = Long.parseLong(line.substring(11).trim()) / 1e6;
                }
                return Optional.of(new Reading(usage, Math.max(peak, usage), cpu));
            }
        } catch (IOException | RuntimeException e) {
            // the container stopped between two reads: its cgroup is gone
        }
        return Optional.empty();
    }

    private static Path firstExisting(List<Path> candidates) {
        return candidates.stream().filter(Files::isDirectory).findFirst().orElse(null);
    }

    private static long number(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).trim());
    }
}
