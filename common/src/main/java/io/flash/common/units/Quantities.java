package io.flash.common.units;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses sizes ({@code 64Mi}, {@code 4G}, {@code 512MB}) and durations ({@code 90s}, {@code 10m}, {@code 2h}). */
public final class Quantities {

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)([A-Za-z]*)");
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)?");
    private static final Map<String, Long> SIZE_UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("B", 1L),
            Map.entry("k", 1_000L), Map.entry("K", 1_000L), Map.entry("KB", 1_000L),
            Map.entry("M", 1_000_000L), Map.entry("MB", 1_000_000L),
            Map.entry("G", 1_000_000_000L), Map.entry("GB", 1_000_000_000L),
            Map.entry("T", 1_000_000_000_000L), Map.entry("TB", 1_000_000_000_000L),
            Map.entry("Ki", 1L << 10), Map.entry("KiB", 1L << 10),
            Map.entry("Mi", 1L << 20), Map.entry("MiB", 1L << 20),
            Map.entry("Gi", 1L << 30), Map.entry("GiB", 1L << 30),
            Map.entry("Ti", 1L << 40), Map.entry("TiB", 1L << 40));

    public static final String SIZE_HELP = "write a number and a unit together: 512Mi, 4Gi (binary) or 512M, 4G (decimal)";

    private Quantities() {
    }

    /** @throws IllegalArgumentException with a message that says how to write it */
    public static long bytes(String text) {
        String trimmed = text.strip(); // white space only: a control character (NUL) is not part of any size
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("empty; " + SIZE_HELP);
        }
        if (trimmed.matches("\\d+(\\.\\d+)?\\s+\\S+")) {
            throw new IllegalArgumentException("'" + text + "' has a space between number and unit; " + SIZE_HELP);
        }
        Matcher m = SIZE.matcher(trimmed);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size; " + SIZE_HELP);
        }
        Long unit = SIZE_UNITS.get(m.group(2));
        if (unit == null) {
            throw new IllegalArgumentException("unknown unit '" + m.group(2) + "' in '" + text + "'; " + SIZE_HELP);
        }
        double value = Double.parseDouble(m.group(1)) * unit;
        if (value >= Long.MAX_VALUE) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return (long) value;
    }

    /** Seconds; a bare number is seconds. */
    public static long seconds(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; write e.g. 90s, 10m, 2h or 1d");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Math.max(1, n / 1000);
            case "s" -> n;
            case "m" -> n * 60;
            case "h" -> n * 3600;
            default -> n * 86400;
        };
    }

    /** Human form of a byte count, for messages. */
    public static String format(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) return (bytes >> 30) + "Gi";
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return (bytes >> 20) + "Mi";
        if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) return (bytes >> 10) + "Ki";
        return bytes + "B";
    }
}
