package io.flash.common.serde;

import io.apicurio.registry.rest.client.models.ProblemDetails;
import io.flash.common.errors.RootCause;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;

/** Why a value could not be read, in words that tell its writer what to do. */
public final class DecodeFailures {

    public static final String NOT_WIRE_FORMAT = "value is not Avro in the schema-registry wire format (magic byte 0 + 4-byte schema id); "
            + "write it with an Avro serializer connected to the schema registry (Confluent protocol or Apicurio)";

    private DecodeFailures() {
    }

    /** Null when the value starts like a registry-serialized record, else the reason it does not. */
    public static String wireFormatProblem(byte[] value) {
        if (value == null || value.length == 0) return "empty record value: " + NOT_WIRE_FORMAT;
        if (value.length < 5 || value[0] != 0) return NOT_WIRE_FORMAT;
        return null;
    }

    /** The schema id of a value in the wire format (bytes 1-4). */
    public static int schemaId(byte[] value) {
        return ByteBuffer.wrap(value, 1, 4).getInt();
    }

    /** The registry's answer when the failure was one: null if the failure came from elsewhere. */
    public static ProblemDetails registryProblem(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ProblemDetails problem) return problem;
        }
        return null;
    }

    /** The reason for a value in the wire format that still failed to decode. */
    public static String explain(byte[] value, Throwable e) {
        int id = schemaId(value);
        ProblemDetails problem = registryProblem(e);
        if (problem != null && problem.getStatus() != null && problem.getStatus() == 404) {
            return "the schema registry has no schema with id " + id + " (bytes 1-4 of the value): serialize with a client "
                    + "connected to this platform's registry, which registers the schema it writes";
        }
        if (problem != null) {
            return "the schema registry answered " + problem.getStatus() + " for schema " + id + ": "
                    + (problem.getDetail() != null ? problem.getDetail() : problem.getTitle());
        }
        return "value could not be decoded as Avro with schema " + id + ": " + RootCause.message(e);
    }

    /**
     * Whether the failure is the registry's, not the record's: it failed (5xx), could not be
     * reached, or did not answer in time. Not: the bytes ended early (an IOException too).
     */
    public static boolean registryUnreachable(Throwable e) {
        ProblemDetails problem = registryProblem(e);
        if (problem != null) return problem.getStatus() == null || problem.getStatus() >= 500;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SocketException || t instanceof SocketTimeoutException
                    || t instanceof UnknownHostException || t instanceof HttpTimeoutException
                    || t instanceof TimeoutException) return true;
            // The HTTP client's own I/O failures (a connection closed before the answer) are plain IOExceptions.
            if (t instanceof IOException && t.getStackTrace().length > 0
                    && t.getStackTrace()[0].getClassName().startsWith("jdk.internal.net.http")) return true;
        }
        return false;
    }
}
