package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code flash login}: signs in to Flash's identity provider (the secure mode's Keycloak realm) with
 * the password grant (password from the terminal, or stdin when piped) or the device grant (a URL
 * and code to open in any browser), and keeps the tokens in the login file (mode 600). Every command
 * that talks to Flash then takes a fresh access token from here, refreshing it with the refresh token
 * when it has expired. The provider's answers, never the tokens, are what a failure prints.
 */
final class Login {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String CLIENT_ID = "flash-cli";
    /** A token this close to its expiry is refreshed first: it must still be valid when ingest reads the record. */
    private static final long MARGIN_SECONDS = 30;

    private final Terminal term;
    private final String issuer;
    private final Path file;

    Login(Terminal term, String issuer, Path file) {
        this.term = term;
        this.issuer = issuer;
        this.file = file;
    }

    static Login fromEnvironment(Terminal term) {
        String issuer = term.env("FLASH_OIDC_URL", "http://127.0.0.1:" + term.env("FLASH_KEYCLOAK_PORT", "8180") + "/realms/flash");
        String file = term.env("FLASH_LOGIN_FILE", System.getProperty("user.home") + "/.flash/login.json");
        return new Login(term, issuer, Path.of(file));
    }

    /** {@code flash login [--device] [USER]}. */
    int run(boolean device, String user) throws Exception {
        JsonNode tokens;
        if (device) {
            tokens = deviceGrant();
        } else {
            if (user == null) user = System.getProperty("user.name");
            String password = readPassword(user);
            tokens = post("/protocol/openid-connect/token", Map.of("grant_type", "password", "client_id", CLIENT_ID,
                    "username", user, "password", password));
        }
        if (tokens == null) return 1;
        save(tokens);
        term.err().println("signed in to " + issuer + " as " + claim(tokens.get("access_token").asText(), "preferred_username")
                + "; tokens in " + file + " (refreshed when needed; 'flash logout' removes them)");
        return 0;
    }

    int logout() throws IOException {
        boolean existed = Files.deleteIfExists(file);
        term.err().println(existed ? "signed out (removed " + file + ")" : "not signed in");
        return 0;
    }

    /** A valid access token, refreshed when it (nearly) expired; empty when nobody signed in here. */
    Optional<String> accessToken() throws Exception {
        if (!Files.exists(file)) return Optional.empty();
        JsonNode saved = JSON.readTree(file.toFile());
        long now = System.currentTimeMillis() / 1000;
        if (saved.path("expires_at").asLong() - MARGIN_SECONDS > now) return Optional.of(saved.get("access_token").asText());
        if (saved.path("refresh_expires_at").asLong() > now || saved.path("refresh_expires_at").asLong() == 0) {
            JsonNode fresh = post("/protocol/openid-connect/token", Map.of("grant_type", "refresh_token", "client_id", CLIENT_ID,
                    "refresh_token", saved.get("refresh_token").asText()));
            if (fresh != null) {
                save(fresh);
                return Optional.of(fresh.get("access_token").asText());
            }
        }
        throw new IllegalStateException("your sign-in has expired: run 'flash login' again");
    }

    private JsonNode deviceGrant() throws Exception {
        JsonNode start = post("/protocol/openid-connect/auth/device", Map.of("client_id", CLIENT_ID));
        if (start == null) return null;
        term.err().println("open " + start.path("verification_uri_complete").asText(start.path("verification_uri").asText())
                + " in a browser and sign in (code " + start.path("user_code").asText() + "); waiting…");
        long interval = Math.max(1, start.path("interval").asLong(5));
        long deadline = System.currentTimeMillis() + start.path("expires_in").asLong(600) * 1000;
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(interval * 1000);
            HttpResponse<String> r = postRaw("/protocol/openid-connect/token", Map.of("grant_type",
                    "urn:ietf:params:oauth:grant-type:device_code", "client_id", CLIENT_ID, "device_code", start.get("device_code").asText()));
            JsonNode body = JSON.readTree(r.body());
            if (r.statusCode() == 200) return body;
            String error = body.path("error").asText();
            if (error.equals("slow_down")) interval++;
            else if (!error.equals("authorization_pending")) return failed(r);
        }
        term.err().println("the code expired before the sign-in finished: run 'flash login --device' again");
        return null;
    }

    private static String readPassword(String user) throws IOException {
        if (System.console() != null) return new String(System.console().readPassword("password for %s: ", user));
        String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (line == null) throw new IOException("no password on stdin (pipe it in, or run 'flash login' at a terminal)");
        return line;
    }

    private void save(JsonNode tokens) throws IOException {
        long now = System.currentTimeMillis() / 1000;
        ObjectNode saved = JSON.createObjectNode();
        saved.put("issuer", issuer);
        saved.put("access_token", tokens.get("access_token").asText());
        saved.put("expires_at", now + tokens.path("expires_in").asLong(60));
        saved.put("refresh_token", tokens.path("refresh_token").asText());
        long refreshLife = tokens.path("refresh_expires_in").asLong(0);
        saved.put("refresh_expires_at", refreshLife == 0 ? 0 : now + refreshLife);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(temp, JSON.writeValueAsString(saved));
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private JsonNode post(String path, Map<String, String> form) throws Exception {
        HttpResponse<String> r = postRaw(path, form);
        return r.statusCode() == 200 ? JSON.readTree(r.body()) : failed(r);
    }

    private HttpResponse<String> postRaw(String path, Map<String, String> form) throws Exception {
        String body = form.entrySet().stream().map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(issuer + path)).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new IOException("the identity provider at " + issuer + " does not answer: is Flash up in the secure mode"
                    + " (bin/flash up --secure)? Set FLASH_OIDC_URL to its realm.");
        }
    }

    private JsonNode failed(HttpResponse<String> r) throws IOException {
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            body = JSON.createObjectNode();
        }
        term.err().println("sign-in refused (HTTP " + r.statusCode() + "): "
                + body.path("error_description").asText(body.path("error").asText("no reason given")));
        return null;
    }

    /** A claim of a JWT's payload (not verified here: only shown to the person who just signed in). */
    static String claim(String jwt, String name) {
        try {
            String payload = jwt.split("\\.")[1];
            return JSON.readTree(Base64.getUrlDecoder().decode(payload)).path(name).asText("?");
        } catch (Exception e) {
            return "?";
        }
    }
}
