package io.flash.ingest.api;

import io.flash.ingest.app.IngestConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the web console (served at /) needs before it can call anything: whether to sign people in,
 * and where. {@code GET /console/config}, open to all: it holds nothing secret.
 */
@Path("/console/config")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class ConsoleResource {

    public record ConsoleConfig(boolean secure, String authority, String clientId) {
    }

    private final ConsoleConfig config;

    public ConsoleResource(@ConfigProperty(name = "quarkus.oidc.tenant-enabled") boolean secure,
                           @ConfigProperty(name = "quarkus.oidc.auth-server-url") String authority,
                           IngestConfig settings) {
        this.config = secure ? new ConsoleConfig(true, authority, settings.console().clientId()) : new ConsoleConfig(false, null, null);
    }

    @GET
    public ConsoleConfig config() {
        return config;
    }
}
