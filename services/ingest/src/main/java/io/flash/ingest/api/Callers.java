package io.flash.ingest.api;

import io.flash.ingest.access.Caller;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Map;
import java.util.Optional;

/**
 * The request's caller for the HTTP doors (jobs API and TES): in secure mode the identity quarkus-oidc
 * verified from the bearer token, else {@link Caller#OPEN}; and the answers when it may not go on.
 */
@ApplicationScoped
public class Callers {

    private final SecurityIdentity identity;
    private final boolean secure;
    private final String adminRole;

    public Callers(SecurityIdentity identity, @ConfigProperty(name = "quarkus.oidc.tenant-enabled") boolean secure,
                   @ConfigProperty(name = "flash.security.admin-role") String adminRole) {
        this.identity = identity;
        this.secure = secure;
        this.adminRole = adminRole;
    }

    /** The caller, or empty when the mode is secure and the request carries no valid token. */
    public Optional<Caller> current() {
        if (!secure) return Optional.of(Caller.OPEN);
        if (identity.isAnonymous()) return Optional.empty();
        return Optional.of(Caller.user(identity.getPrincipal().getName(), identity.hasRole(adminRole)));
    }

    /**
     * The caller's access token, for the record a submission becomes: ingest's intake verifies the
     * token of every ingest-topic record, whichever door it came through. Empty in the open mode.
     */
    public String token() {
        if (!secure || identity.isAnonymous()) return null;
        io.quarkus.oidc.AccessTokenCredential credential = identity.getCredential(io.quarkus.oidc.AccessTokenCredential.class);
        return credential == null ? null : credential.getToken();
    }

    public static Response unauthenticated() {
        return Response.status(401).header("WWW-Authenticate", "Bearer realm=\"flash\"")
                .entity(Map.of("error", "sign in first: 'flash login' for the CLI, or send Authorization: Bearer <access token>"
                        + " from Flash's identity provider (its token endpoint: README, Security)")).build();
    }

    public static Response forbidden(Caller caller, String owner, String what) {
        return Response.status(403).entity(Map.of("error", caller.name() + " may not " + what + " a job of "
                + (owner == null ? "nobody" : owner) + ": only its owner or an admin may")).build();
    }
}
