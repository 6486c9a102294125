package io.flash.cli;

import java.io.PrintWriter;
import java.util.Map;

/** Where a command writes (picocli's streams: standard out and error, or a test's) and the environment it reads. */
record Terminal(PrintWriter out, PrintWriter err, Map<String, String> environment) {

    /** The variable's value, or the fallback when it is unset or blank. */
    String env(String name, String fallback) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
