package io.flash.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Resident memory of named processes ("name=pid,name=pid"), now and at peak, from /proc. */
final class Memory {

    private Memory() {
    }

    static String of(String namedPids) {
        List<String> parts = new ArrayList<>();
        NamedPids.parse(namedPids).forEach((name, pid) -> {
            try {
                long rss = 0, peak = 0;
                for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                    if (line.startsWith("VmRSS:")) rss = kib(line);
                    if (line.startsWith("VmHWM:")) peak = kib(line);
                }
                parts.add(String.format("%s rss %d MiB (peak %d MiB)", name, rss >> 10, peak >> 10));
            } catch (IOException e) {
                parts.add(name + " gone");
            }
        });
        return String.join("; ", parts);
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
}
