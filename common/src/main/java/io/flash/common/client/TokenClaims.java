package io.flash.common.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * What a client may read from its own access token without verifying it (ingest verifies it): the
 * user it names, which scopes the job ids of the secure mode.
 */
final class TokenClaims {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenClaims() {
    }

    /** The token's {@code preferred_username} (the principal ingest takes as the owner). */
    static String user(String accessToken) {
        String[] parts = accessToken.split("\\.");
        if (parts.length < 2) throw new IllegalArgumentException("the access token is not a JWT");
        try {
            JsonNode claims = JSON.readTree(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
            JsonNode user = claims.get("preferred_username");
            if (user == null || user.asText().isEmpty()) throw new IllegalArgumentException("the access token names no user");
            return user.asText();
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("the access token cannot be read: " + e.getMessage(), e);
        }
    }
}
