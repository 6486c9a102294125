package io.flash.ingest.tes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/**
 * The documents of GA4GH TES 1.1 ({@code openapi/task_execution_service.openapi.yaml} of
 * {@code ga4gh/task-execution-schemas}), with the spec's field names: what a client sends. The
 * fields the server sets (id, state, logs, creation_time; readOnly in the spec) are not read —
 * ignored like any unknown field — and {@link TesViews} writes them.
 */
public final class TesModel {

    private TesModel() {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Task(String name, String description, List<Input> inputs, List<Output> outputs,
                       Resources resources, List<Executor> executors, List<String> volumes, Map<String, String> tags) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Executor(String image, List<String> command, String workdir, String stdin, String stdout, String stderr,
                           Map<String, String> env, @JsonProperty("ignore_error") Boolean ignoreError) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Input(String name, String description, String url, String path, String type, String content, Boolean streamable) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Output(String name, String description, String url, String path, @JsonProperty("path_prefix") String pathPrefix,
                         String type) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Resources(@JsonProperty("cpu_cores") Integer cpuCores, Boolean preemptible, @JsonProperty("ram_gb") Double ramGb,
                            @JsonProperty("disk_gb") Double diskGb, List<String> zones,
                            @JsonProperty("backend_parameters") Map<String, String> backendParameters,
                            @JsonProperty("backend_parameters_strict") Boolean backendParametersStrict) {
    }
}
