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
        if (namedPids == null || namedPids.isBlank()) return "";
        List<String> parts = new ArrayList<>();
        for (String entry : namedPids.split(",")) {
            String[] kv = entry.split("=", 2);
            if (kv.length != 2) continue;
            try {
                long rss = 0, peak = 0;
                for (String line : Files.readAllLines(Path.of("/proc", kv[1].strip(), "status"))) {
                    if (line.startsWith("VmRSS:")) rss = kib(line);
                    if (line.startsWith("VmHWM:")) peak = kib(line);
                }
                parts.add(String.format("%s rss %d MiB (peak %d MiB)", kv[0].strip(), rss >> 10, peak >> 10));
            } catch (IOException e) {
                parts.add(kv[0].strip() + " gone");
            }
        }
        return String.join("; ", parts);
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
}
