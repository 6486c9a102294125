package io.flash.ingest.kafka;

import io.flash.common.client.JobClient;
import io.flash.ingest.app.IngestConfig;
import io.flash.ingest.core.Intake;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.core.access.TokenRefusals;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.TenantIdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Who published an ingest-topic record: in the secure mode the user of the access token in its
 * {@value JobClient#TOKEN_HEADER} header, verified as the HTTP doors verify a bearer token (quarkus-oidc:
 * signature by the provider's keys, issuer, expiry); the HTTP doors put the caller's token there too.
 * A record is read within seconds of its publication, well inside a token's lifetime; one read
 * later (ingest was down longer than that) is rejected saying so, and is submitted again.
 */
@ApplicationScoped
public class SubmitterTokens {

    /** Larger than any token Keycloak issues for Flash's realm, small enough that a hostile header costs nothing. */
    private static final int MAX_TOKEN_BYTES = 16 * 1024;

    private final boolean secure;
    private final String adminRole;
    private final Instance<TenantIdentityProvider> verifier;

    public SubmitterTokens(@ConfigProperty(name = "quarkus.oidc.tenant-enabled") boolean secure,
                           IngestConfig config,
                           Instance<TenantIdentityProvider> verifier) {
        this.secure = secure;
        this.adminRole = config.security().adminRole();
        this.verifier = verifier;
    }

    public Intake.Submitter of(Headers headers) {
        if (!secure) return Intake.ANYONE;
        Header header = headers == null ? null : headers.lastHeader(JobClient.TOKEN_HEADER);
        if (header == null || header.value() == null || header.value().length == 0) {
            return new Intake.Unverified("no access token: in the secure mode a job event carries its publisher's token"
                    + " in the record header " + JobClient.TOKEN_HEADER + " (docs/security.md): 'flash login' before 'flash submit',"
                    + " or submit it over HTTP with a bearer token");
        }
        if (header.value().length > MAX_TOKEN_BYTES) {
            return new Intake.Unverified("the header is " + header.value().length + " bytes, more than a token's " + MAX_TOKEN_BYTES);
        }
        try {
            SecurityIdentity identity = verifier.get().authenticate(new AccessTokenCredential(new String(header.value(), StandardCharsets.UTF_8)))
                    .await().atMost(Duration.ofSeconds(30));
            return new Intake.Verified(Caller.user(identity.getPrincipal().getName(), identity.hasRole(adminRole)));
        } catch (RuntimeException e) {
            return new Intake.Unverified(TokenRefusals.reason(e, "when ingest read the record")
                    + "; then publish the job again");
        }
    }

}
