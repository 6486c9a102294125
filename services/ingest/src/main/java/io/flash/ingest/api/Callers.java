package io.flash.ingest.api;

import io.flash.ingest.app.IngestConfig;
import io.flash.ingest.core.access.Access;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.view.JobViews;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

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
                   IngestConfig config) {
        this.identity = identity;
        this.secure = secure;
        this.adminRole = config.security().adminRole();
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
        AccessTokenCredential credential = identity.getCredential(AccessTokenCredential.class);
        return credential == null ? null : credential.getToken();
    }

    /** A job as the caller may see it, or the answer refusing it. */
    public record Lookup(JobViews.Page page, Response refusal) {
    }

    /**
     * The job's page (tasks {@code page}, {@code size}) when the caller may {@code what} it; else 401
     * (no valid token), 404 (no such job yet) or 403 (another's job), each saying why.
     */
    public Lookup job(JobViews views, String id, int page, int size, String what) {
        Optional<Caller> caller = current();
        if (caller.isEmpty()) return new Lookup(null, unauthenticated());
        Optional<JobViews.Page> job = views.job(id, page, size);
        if (job.isEmpty()) {
            return new Lookup(null, Response.status(404).entity(Map.of("error", "no job " + id + " (yet): a job appears once"
                    + " ingest accepted it; a rejected submission is on flash.jobs.rejected")).build());
        }
        String owner = job.get().job().getOwner();
        if (!Access.mayAct(caller.get(), owner)) return new Lookup(null, forbidden(caller.get(), owner, what));
        return new Lookup(job.get(), null);
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
