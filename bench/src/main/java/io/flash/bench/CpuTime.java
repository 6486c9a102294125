package io.flash.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the machine's CPU went during a run: each named process's CPU time (user + system, from
 * /proc/PID/stat) and how busy all cores were (/proc/stat). A latency figure means little without
 * it: a paced run whose machine is already saturated measures queueing for the cores, not hops.
 */
final class CpuTime {

    /** Linux reports process times in USER_HZ ticks, 100 per second on every architecture Flash runs on. */
    private static final double MS_PER_TICK = 10.0;

    record Snapshot(Map<String, Long> ticks, long busyTicks, long allTicks, long atNanos) {
    }

    /** One run's difference of two snapshots. */
    record Usage(String load, int tasks, Snapshot before, Snapshot after) {
        double seconds() {
            return (after.atNanos() - before.atNanos()) / 1e9;
        }

        double msPerTask(String process) {
            return cpuMillis(process) / tasks;
        }

        double coresUsed(String process) {
            return cpuMillis(process) / 1000 / seconds();
        }

        /** NaN when the process was not there at both snapshots. */
        private double cpuMillis(String process) {
            Long from = before.ticks().get(process), to = after.ticks().get(process);
            return from == null || to == null ? Double.NaN : (to - from) * MS_PER_TICK;
        }

        double machineBusy() {
            long all = after.allTicks() - before.allTicks();
            return all == 0 ? Double.NaN : (double) (after.busyTicks() - before.busyTicks()) / all;
        }
    }

    private final Map<String, Path> processes = new LinkedHashMap<>();

    /** {@code namedPids} is "name=pid,name=pid"; this process is added as "bench (this driver)". */
    CpuTime(String namedPids) {
        NamedPids.parse(namedPids).forEach((name, pid) -> processes.put(name, Path.of("/proc", pid, "stat")));
        processes.put("bench (this driver)", Path.of("/proc/self/stat"));
    }

    Snapshot snapshot() {
        Map<String, Long> ticks = new LinkedHashMap<>();
        processes.forEach((name, stat) -> {
            Long used = processTicks(stat);
            if (used != null) ticks.put(name, used);
        });
        long[] machine = machineTicks();
        return new Snapshot(ticks, machine[0], machine[1], System.nanoTime());
    }

    /** ms of CPU per task and cores used, per process and run, heaviest first; then the machine's busy share. */
    String table(List<Usage> runs) {
        if (runs.isEmpty()) return "";
        Usage first = runs.get(0);
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-28s", "process"));
        runs.forEach(r -> out.append(String.format(Locale.ROOT, " %12s %10s", r.load() + " ms/task", "cores")));
        out.append('\n');
        first.after().ticks().keySet().stream()
                .sorted((a, b) -> Double.compare(first.msPerTask(b), first.msPerTask(a)))
                .forEach(name -> {
                    out.append(String.format(Locale.ROOT, "%-28s", name));
                    runs.forEach(r -> out.append(String.format(Locale.ROOT, " %12.3f %10.2f", r.msPerTask(name), r.coresUsed(name))));
                    out.append('\n');
                });
        out.append(String.format(Locale.ROOT, "%-28s", "machine busy (all cores)"));
        runs.forEach(r -> out.append(String.format(Locale.ROOT, " %12s %9.0f%%", "", 100 * r.machineBusy())));
        out.append(String.format(Locale.ROOT, "   (%d cores)%n", Runtime.getRuntime().availableProcessors()));
        return out.toString();
    }

    private static Long processTicks(Path stat) {
        try {
            String line = Files.readString(stat);
            // Fields after the command name, which is in parentheses and may hold spaces.
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15)
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long all = 0;
            for (int i = 1; i < f.length; i++) all += Long.parseLong(f[i]);
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0); // idle + iowait
            return new long[] {all - idle, all};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }
}
