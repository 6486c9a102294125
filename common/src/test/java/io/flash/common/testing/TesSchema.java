package io.flash.common.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi30;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Checks a TES response against the GA4GH TES 1.1.0 schemas kept in {@code ga4gh/} of this test
 * jar (see its NOTICE.md), with a maintained JSON Schema validator: the upstream OpenAPI document
 * itself, unchanged, for every shape it defines without contradicting its own prose, and the
 * stricter restatement for all (MINIMAL views, which the document's {@code tesTask} cannot
 * describe, and service-info, whose schema the document takes from a file the build cannot fetch).
 */
public final class TesSchema {

    public enum Shape {
        task("tesTask"), taskMinimal(null), listTasksResponse(null), createTaskResponse("tesCreateTaskResponse"),
        cancelTaskResponse("tesCancelTaskResponse"), serviceInfo(null);

        /** Its schema in the upstream document, where that one holds for every view. */
        private final String upstream;

        Shape(String upstream) {
            this.upstream = upstream;
        }
    }

    private static final String DOCUMENT = "classpath:ga4gh/tes-1.1.0-responses.schema.json";
    private static final String UPSTREAM = "classpath:ga4gh/tes-1.1.0.openapi.yaml";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final JsonSchemaFactory OPENAPI = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4,
            builder -> builder.metaSchema(OpenApi30.getInstance()).defaultMetaSchemaIri(OpenApi30.getInstance().getIri()));
    private static final ConcurrentHashMap<Shape, JsonSchema> SCHEMAS = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Shape, JsonSchema> UPSTREAM_SCHEMAS = new ConcurrentHashMap<>();

    private TesSchema() {
    }

    /** Throws, naming every violation, unless {@code body} is a valid document of that shape. */
    public static JsonNode check(Shape shape, String body) {
        try {
            return check(shape, JSON.readTree(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }

    public static JsonNode check(Shape shape, JsonNode body) {
        refuse("a TES 1.1 " + shape, SCHEMAS.computeIfAbsent(shape, TesSchema::load).validate(body), body);
        if (shape.upstream != null) checkUpstream(shape, body);
        return body;
    }

    /** Against the upstream OpenAPI document alone (for shapes it defines for every view). */
    static void checkUpstream(Shape shape, JsonNode body) {
        refuse("the upstream document's " + shape.upstream, UPSTREAM_SCHEMAS.computeIfAbsent(shape, TesSchema::loadUpstream)
                .validate(body), body);
    }

    private static void refuse(String what, Set<ValidationMessage> problems, JsonNode body) {
        if (!problems.isEmpty()) {
            throw new AssertionError("not " + what + ": "
                    + problems.stream().map(ValidationMessage::getMessage).sorted().collect(Collectors.joining("; ")) + "\n" + body);
        }
    }

    private static JsonSchema loadUpstream(Shape shape) {
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
        return OPENAPI.getSchema(SchemaLocation.of(UPSTREAM + "#/components/schemas/" + shape.upstream), config);
    }

    private static JsonSchema load(Shape shape) {
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
        return FACTORY.getSchema(SchemaLocation.of(DOCUMENT + "#/$defs/" + shape.name()), config);
    }
}
