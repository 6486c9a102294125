package io.flash.common.testing;

import org.junit.jupiter.api.Test;

import static io.flash.common.testing.TesSchema.Shape.*;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checker the TES tests lean on must refuse what the spec refuses. */
class TesSchemaTest {

    private static final String LOG = """
            {"logs": [{"exit_code": 0, "start_time": "2026-12-01T10:00:00Z"}], "outputs": []}""";

    @Test
    void aSpecShapedTaskPasses() {
        TesSchema.check(task, """
                {"id": "t", "state": "COMPLETE", "executors": [{"image": "alpine", "command": ["true"]}],
                 "tags": {"a": "b"}, "creation_time": "2026-12-01T10:00:00.123Z", "logs": [%s]}""".formatted(LOG));
        TesSchema.check(taskMinimal, "{\"id\": \"t\", \"state\": \"QUEUED\"}");
        TesSchema.check(listTasksResponse, "{\"tasks\": [{\"id\": \"t\", \"state\": \"QUEUED\"}], \"next_page_token\": \"t\"}");
    }

    @Test
    void misnamedFieldsWrongTypesStatesAndTimesFail() {
        String[] bad = {
                "{\"id\": \"t\", \"state\": \"DONE\", \"executors\": []}",
                "{\"id\": \"t\", \"executors\": [{\"image\": \"a\"}]}",
                "{\"id\": \"t\", \"executors\": [], \"logs\": [{\"logs\": [{\"exitCode\": 0}], \"outputs\": []}]}",
                "{\"id\": \"t\", \"executors\": [], \"creation_time\": \"yesterday\"}",
                "{\"id\": \"t\", \"executors\": [], \"resources\": {\"ram_gb\": \"8\"}}",
                "{\"id\": \"t\", \"state\": \"QUEUED\"}",
        };
        for (String body : bad) {
            AssertionError e = assertThrows(AssertionError.class, () -> TesSchema.check(task, body), body);
            assertTrue(e.getMessage().startsWith("not a TES 1.1 task"), e.getMessage());
        }
        assertThrows(AssertionError.class, () -> TesSchema.check(serviceInfo, "{\"id\": \"x\", \"name\": \"y\"}"));
        assertThrows(AssertionError.class, () -> TesSchema.check(listTasksResponse, "{\"tasks\": [{\"id\": \"t\"}]}"));
    }

    @Test
    void theUpstreamOpenApiDocumentIsAppliedAsItStands() throws Exception {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        TesSchema.checkUpstream(task, json.readTree("""
                {"id": "t", "state": "COMPLETE", "executors": [{"image": "alpine", "command": ["true"]}],
                 "logs": [{"logs": [{"exit_code": 0}], "outputs": [], "system_logs": ["ok"]}]}"""));
        AssertionError badState = assertThrows(AssertionError.class, () -> TesSchema.checkUpstream(task,
                json.readTree("{\"state\": \"DONE\", \"executors\": [{\"image\": \"alpine\", \"command\": [\"true\"]}]}")));
        assertTrue(badState.getMessage().startsWith("not the upstream document's tesTask"), badState.getMessage());
        assertThrows(AssertionError.class, () -> TesSchema.checkUpstream(task, json.readTree("{\"executors\": [{\"image\": \"alpine\"}]}")),
                "an executor without command");
        assertThrows(AssertionError.class, () -> TesSchema.checkUpstream(createTaskResponse, json.readTree("{}")), "create answers an id");
    }
}
