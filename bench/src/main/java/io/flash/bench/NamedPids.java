package io.flash.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** Processes named on the command line or in the environment as "name=pid,name=pid", in their order. */
final class NamedPids {

    private NamedPids() {
    }

    static Map<String, String> parse(String namedPids) {
        Map<String, String> byName = new LinkedHashMap<>();
        if (namedPids == null) return byName;
        for (String entry : namedPids.split(",")) {
            String[] kv = entry.split("=", 2);
            if (kv.length == 2 && !kv[1].isBlank()) byName.put(kv[0].strip(), kv[1].strip());
        }
        return byName;
    }
}
