package io.flash.ingest.core.validation;

import io.flash.common.units.Quantities;
import io.flash.schema.FieldError;
import io.flash.schema.TaskSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import static io.flash.ingest.core.validation.Reasons.error;

/** How a task runs and is tried again: attempts, timeout, backoff, exit codes, locality and what it waits for. */
final class RunRules {

    private RunRules() {
    }

    static int maxAttempts(Integer given, Limits limits, String path, List<FieldError> errors) {
        int maxAttempts = given == null ? 1 : given;
        if (maxAttempts < 1 || maxAttempts > limits.maxAttempts()) {
            errors.add(error(path + "maxAttempts", maxAttempts + ": must be between 1 and " + limits.maxAttempts()));
        }
        return maxAttempts;
    }

    /** Seconds, or null for none. */
    static Long timeout(String given, String path, List<FieldError> errors) {
        if (given == null) return null;
        try {
            long timeout = Quantities.seconds(given);
            if (timeout < 1) {
                errors.add(error(path + "timeout", "'" + given + "' is no time at all: give at least 1s, or leave timeout out for none"));
            }
            return timeout;
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "timeout", e.getMessage()));
            return null;
        }
    }

    /** The job's cacheMaxAge in seconds, or null for no bound. */
    static Long cacheMaxAge(String given, List<FieldError> errors) {
        if (given == null || given.isBlank()) return null;
        try {
            long seconds = Quantities.seconds(given);
            if (seconds < 1) {
                errors.add(error("cacheMaxAge", "'" + given + "' would never use the cache: give at least 1s, or set cache: false on the tasks"));
            }
            return seconds;
        } catch (IllegalArgumentException e) {
            errors.add(error("cacheMaxAge", e.getMessage()));
            return null;
        }
    }

    static long backoff(String given, String path, List<FieldError> errors) {
        if (given == null) return 0L;
        try {
            return Quantities.seconds(given);
        } catch (IllegalArgumentException e) {
            errors.add(error(path + "backoff", e.getMessage()));
            return 0L;
        }
    }

    static void exitCodes(List<Integer> codes, String field, List<FieldError> errors) {
        for (int i = 0; i < codes.size(); i++) {
            if (codes.get(i) < 1 || codes.get(i) > 255) {
                errors.add(error(field + "[" + i + "]", codes.get(i) + " is not a failure exit code (1-255)"));
            }
        }
    }

    /** Whether the task must run where its dependencies ran (required) or only should (preferred, the default). */
    static boolean requireLocality(String given, String path, List<FieldError> errors) {
        return either(given, "required", "preferred", false, path + "locality", errors);
    }

    /** Whether its attempts may run on spot capacity: allow (the default) or never (docs/cost.md). */
    static boolean spotAllowed(String given, String path, List<FieldError> errors) {
        return either(given, "allow", "never", true, path + "spot", errors);
    }

    /** A setting of two words: true for {@code yes}, false for {@code no}, {@code unset} when it is not given. */
    private static boolean either(String given, String yes, String no, boolean unset, String field, List<FieldError> errors) {
        if (given == null || given.isBlank()) return unset;
        String word = given.trim().toLowerCase(Locale.ROOT);
        if (word.equals(yes) || word.equals(no)) return word.equals(yes);
        List<String> words = new ArrayList<>(List.of(yes, no));
        words.sort(null);
        errors.add(error(field, "'" + given + "' is not one of " + String.join(", ", words)));
        return unset;
    }

    /** The tasks it waits for, each once, each a task of this job other than itself. */
    static List<String> dependsOn(TaskSpec spec, Set<String> names, String path, List<FieldError> errors) {
        List<String> deps = spec.getDependsOn() == null ? List.of() : spec.getDependsOn();
        for (int d = 0; d < deps.size(); d++) {
            String dep = deps.get(d);
            if (dep.equals(spec.getName())) {
                errors.add(error(path + "dependsOn[" + d + "]", "a task cannot depend on itself"));
            } else if (!names.contains(dep)) {
                errors.add(error(path + "dependsOn[" + d + "]", "no task named '" + dep + "' in this job; known tasks: " + new TreeSet<>(names)));
            }
        }
        return new ArrayList<>(new LinkedHashSet<>(deps));
    }
}
