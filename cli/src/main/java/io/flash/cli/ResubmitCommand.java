package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.client.JobClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

@Command(name = "resubmit", description = {"Submit a job again, as it was accepted, under a new id (POST /jobs/{id}/resubmit).",
        "Its steps whose inputs, image and command did not change are served from the cache (docs/caching.md):",
        "a job that failed at its seventh step starts again at the seventh."})
final class ResubmitCommand implements Callable<Integer> {

    @ParentCommand
    FlashCli flash;

    @Parameters(paramLabel = "JOB_ID", description = "the job to submit again (any state)")
    String jobId;

    @Option(names = "--submission-id", paramLabel = "ID",
            description = "the new job's submission id (default: a new UUID); the same id again names the same job, not a second")
    String submissionId;

    @Mixin
    WaitOptions waiting;

    @Override
    public Integer call() throws Exception {
        Terminal term = flash.terminal();
        String path = "/jobs/" + jobId + "/resubmit" + (submissionId == null ? "" : "?submissionId=" + URLEncoder.encode(submissionId, StandardCharsets.UTF_8));
        Api.Answer answer = Api.post(term, flash.api(), path, Duration.ofSeconds(30));
        if (answer == null) return 1;
        if (answer.status() != 202) {
            term.err().println(answer.body().has("error") ? answer.body().get("error").asText() : answer.body().toString());
            return answer.status() == 400 ? 2 : 1;
        }
        JsonNode body = answer.body();
        String newJob = body.get("jobId").asText();
        term.out().println(newJob);
        if (!waiting.wait) {
            term.err().println("submitted " + jobId + " again as " + newJob + "; follow it with: flash watch " + newJob);
            return 0;
        }
        term.err().println("submitted " + jobId + " again as " + newJob + "; waiting for its result…");
        try (JobClient client = new JobClient(flash.bootstrap(), flash.registry())) {
            return flash.awaitOutcome(term, client, newJob, body.get("submissionId").asText(), waiting.timeoutSeconds);
        }
    }
}
