package io.flash.ingest.tes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/**
 * The documents of GA4GH TES 1.1 ({@code openapi/task_execution_service.openapi.yaml} of
 * {@code ga4gh/task-execution-schemas}), with the spec's field names. Read-only fields a client
 * sends (id, state, logs, creation_time) are ignored on create, as the spec marks them readOnly.
 */
public final class TesModel {

    private TesModel() {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Task(String id, String state, String name, String description, List<Input> inputs, List<Output> outputs,
                       Resources resources, List<Executor> executors, List<String> volumes, Map<String, String> tags,
                       List<TaskLog> logs, @JsonProperty("creation_time") String creationTime) {
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

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TaskLog(List<ExecutorLog> logs, Map<String, String> metadata, @JsonProperty("start_time") String startTime,
                          @JsonProperty("end_time") String endTime, List<OutputFileLog> outputs,
                          @JsonProperty("system_logs") List<String> systemLogs) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ExecutorLog(@JsonProperty("start_time") String startTime, @JsonProperty("end_time") String endTime,
                              String stdout, String stderr, @JsonProperty("exit_code") int exitCode) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OutputFileLog(String url, String path, @JsonProperty("size_bytes") String sizeBytes) {
    }
}
