package io.flash.ingest.api;

import io.flash.ingest.core.access.TokenRefusals;
import io.quarkus.security.AuthenticationFailedException;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A request whose bearer token does not verify gets 401 with the reason in words (expired, not
 * Flash's, provider unreachable) rather than an empty body. Authentication is lazy
 * ({@code quarkus.http.auth.proactive=false}) so that the failure reaches this mapper.
 */
public class TokenFailures {

    @ServerExceptionMapper
    public Response refused(AuthenticationFailedException e) {
        return Response.status(401).header("WWW-Authenticate", "Bearer realm=\"flash\", error=\"invalid_token\"")
                .entity(Map.of("error", TokenRefusals.reason(e, ""))).build();
    }
}
