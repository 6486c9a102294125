package io.flash.planner.core;

import io.flash.schema.ResourceEstimate;
import io.flash.schema.ResourceObservation;
import io.flash.schema.TaskDefinition;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Estimates cpu and memory for tasks that did not state them, from what earlier successful runs of
 * the same image and command used: the 90th percentile of recent peaks plus headroom.
 *
 * @param keep      how many recent runs count
 * @param headroom  multiplier on the percentile, e.g. 1.2
 * @param minMemoryBytes floor of a memory estimate
 */
public record ResourceEstimator(int keep, double headroom, long minMemoryBytes) {

    /**
     * A run shorter than this teaches no cpu: its duration comes from start and end times that a
     * batch cluster keeps to the second, and CI saw a sub-second Grid Engine run measured at 8 cores
     * — an estimate of 9.7 cpu that Docker then refused on a 2-core node, failing the next run as
     * the user's. Memory (a peak) is learnt from every run.
     */
    static final long MIN_CPU_SAMPLE_MILLIS = 5_000;

    public static ResourceEstimator defaults() {
        return new ResourceEstimator(50, 1.2, 16L << 20);
    }

    /** Image and command, hashed: the same program gets the same estimate, whatever its job. */
    public static String signature(TaskDefinition task) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(task.getImage().getBytes(StandardCharsets.UTF_8));
            for (String arg : task.getCommand()) {
                sha.update((byte) 0);
                sha.update(arg.getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The estimate after one more observation (previous may be null). */
    public ResourceEstimate update(ResourceEstimate previous, ResourceObservation observation) {
        List<Long> peaks = new ArrayList<>(previous == null ? List.of() : previous.getRecentPeaks());
        List<Double> cpus = new ArrayList<>(previous == null ? List.of() : previous.getRecentCpu());
        List<Double> perItem = new ArrayList<>(previous == null ? List.of() : previous.getRecentSecondsPerItem());
        if (observation.getItems() != null && observation.getItems() > 0 && observation.getDurationMillis() != null) {
            perItem.add(observation.getDurationMillis() / 1000.0 / observation.getItems());
        }
        while (perItem.size() > keep) perItem.remove(0);
        peaks.add(observation.getPeakMemoryBytes());
        if (observation.getCpuSeconds() != null && observation.getDurationMillis() != null
                && observation.getDurationMillis() >= MIN_CPU_SAMPLE_MILLIS) {
            cpus.add(observation.getCpuSeconds() / (observation.getDurationMillis() / 1000.0));
        }
        while (peaks.size() > keep) peaks.remove(0);
        while (cpus.size() > keep) cpus.remove(0);
        long memory = Math.max(minMemoryBytes, (long) (percentile90(peaks.stream().map(Long::doubleValue).toList()) * headroom));
        Double cpu = cpus.isEmpty() ? null : Math.max(0.1, Math.round(percentile90(cpus) * headroom * 100) / 100.0);
        int samples = (previous == null ? 0 : previous.getSamples()) + 1;
        return ResourceEstimate.newBuilder().setSignature(observation.getSignature()).setSamples(samples)
                .setMemoryBytes(memory).setCpu(cpu).setRecentPeaks(peaks).setRecentCpu(cpus).setRecentSecondsPerItem(perItem).setUpdatedAt(observation.getAt())
                .build();
    }

    static double percentile90(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int index = (int) Math.ceil(0.9 * sorted.size()) - 1;
        return sorted.get(Math.max(0, index));
    }
}
