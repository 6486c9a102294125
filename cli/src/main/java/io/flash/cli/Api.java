package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GETs from (and POSTs to) the ingest service's HTTP API for the CLI, with the signed-in user's token (Login) when there is one. */
final class Api {

    /** An answer: its status and JSON body. */
    record Answer(int status, JsonNode body) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Api() {
    }

    /** The answer, whatever its status; null after printing why when the API cannot be reached. */
    static Answer fetch(Terminal term, String api, String path, Duration timeout) throws Exception {
        return send(term, api, HttpRequest.newBuilder(URI.create(api + path)).timeout(timeout));
    }

    /** A POST with no body, as {@link #fetch}. */
    static Answer post(Terminal term, String api, String path, Duration timeout) throws Exception {
        return send(term, api, HttpRequest.newBuilder(URI.create(api + path)).timeout(timeout).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static Answer send(Terminal term, String api, HttpRequest.Builder request) throws Exception {
        Login.fromEnvironment(term).accessToken().ifPresent(t -> request.header("Authorization", "Bearer " + t));
        HttpResponse<String> response;
        try {
            response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            term.err().println("no status API at " + api + ": is Flash up (bin/flash up)? Set FLASH_API_URL to another ingest instance.");
            return null;
        } catch (IOException e) {
            term.err().println("status API at " + api + " failed: " + e.getMessage());
            return null;
        }
        return new Answer(response.statusCode(), JSON.readTree(response.body()));
    }

    /** A 200's body; null after printing the API's error (or why it cannot be reached). */
    static JsonNode get(Terminal term, String api, String path, Duration timeout) throws Exception {
        return ok(term, fetch(term, api, path, timeout));
    }

    static JsonNode ok(Terminal term, Answer answer) {
        if (answer == null) return null;
        if (answer.status() != 200) {
            term.err().println(answer.body().has("error") ? answer.body().get("error").asText() : answer.body().toString());
            return null;
        }
        return answer.body();
    }
}
