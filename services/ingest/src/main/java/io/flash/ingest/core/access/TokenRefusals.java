package io.flash.ingest.core.access;

import java.util.Locale;

/**
 * Why a token was refused, in words a person can act on — never the token or its claims, which the
 * verifier's own messages may quote. Shared by the HTTP doors and the ingest topic's check.
 */
public final class TokenRefusals {

    private TokenRefusals() {
    }

    /** @param when what was refused, e.g. "when ingest read the record" (empty for a request) */
    public static String reason(Throwable failure, String when) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null && messages.length() < 4096; t = t.getCause()) messages.append(' ').append(t.getMessage());
        String all = messages.toString().toLowerCase(Locale.ROOT);
        String at = when.isEmpty() ? "" : " " + when;
        if (all.contains("expired") || all.contains("no longer valid")) {
            return "the access token had expired" + at + ": sign in again ('flash login', or a new token from the token endpoint)";
        }
        if (all.contains("timeout") || all.contains("timed out") || all.contains("connection refused")) {
            return "the identity provider did not answer, so the token could not be verified" + at + ": try again";
        }
        return "the access token is not valid (not signed by Flash's identity provider, or for another issuer): sign in again";
    }
}
