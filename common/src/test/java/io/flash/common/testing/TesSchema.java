package io.flash.common.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Checks a TES response against the GA4GH TES 1.1.0 schemas kept in {@code ga4gh/} of this test
 * jar (see its NOTICE.md), with a maintained JSON Schema validator.
 */
public final class TesSchema {

    public enum Shape {
        task, taskMinimal, listTasksResponse, createTaskResponse, cancelTaskResponse, serviceInfo
    }

    private static final String DOCUMENT = "classpath:ga4gh/tes-1.1.0-responses.schema.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final ConcurrentHashMap<Shape, JsonSchema> SCHEMAS = new ConcurrentHashMap<>();

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
        Set<ValidationMessage> problems = SCHEMAS.computeIfAbsent(shape, TesSchema::load).validate(body);
        if (!problems.isEmpty()) {
            throw new AssertionError("not a TES 1.1 " + shape + ": "
                    + problems.stream().map(ValidationMessage::getMessage).sorted().collect(Collectors.joining("; ")) + "\n" + body);
        }
        return body;
    }

    private static JsonSchema load(Shape shape) {
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
        return FACTORY.getSchema(SchemaLocation.of(DOCUMENT + "#/$defs/" + shape.name()), config);
    }
}
