package io.flash.executor.docker;

import com.github.dockerjava.api.model.AuthConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Credentials per image registry, from {@code flash.node.registry-auth}:
 * {@code host[:port]=user:password} entries separated by {@code ;} (a password may contain ':').
 * Never logged: {@link #toString()} names only the hosts.
 */
public final class RegistryAuth {

    private final Map<String, AuthConfig> byHost = new HashMap<>();

    public static RegistryAuth parse(String spec) {
        RegistryAuth auth = new RegistryAuth();
        if (spec == null || spec.isBlank()) return auth;
        for (String entry : spec.split(";")) {
            String trimmed = entry.strip();
            if (trimmed.isEmpty()) continue;
            int eq = trimmed.indexOf('=');
            int colon = eq < 0 ? -1 : trimmed.indexOf(':', eq + 1);
            if (eq <= 0 || colon < 0) {
                throw new IllegalArgumentException("flash.node.registry-auth: entries are host=user:password separated by ';' "
                        + "(an entry for " + (eq > 0 ? trimmed.substring(0, eq) : "an unnamed host") + " is malformed)");
            }
            String host = trimmed.substring(0, eq);
            auth.byHost.put(host, new AuthConfig().withRegistryAddress(host)
                    .withUsername(trimmed.substring(eq + 1, colon)).withPassword(trimmed.substring(colon + 1)));
        }
        return auth;
    }

    /** The credentials for the registry an image reference names, if any. */
    public Optional<AuthConfig> forImage(String image) {
        int slash = image.indexOf('/');
        if (slash < 0) return Optional.empty();
        String first = image.substring(0, slash);
        boolean isHost = first.contains(".") || first.contains(":") || first.equals("localhost");
        return isHost ? Optional.ofNullable(byHost.get(first)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "registry credentials for " + byHost.keySet();
    }
}
