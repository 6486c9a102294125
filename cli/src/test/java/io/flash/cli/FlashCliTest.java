package io.flash.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line's argument handling and what it prints, in picocli's testing style (the command
 * on its own streams). Nothing here needs a running platform: the commands that would reach one are
 * pointed at a port where nothing listens, which is also what a person sees before 'bin/flash up'.
 */
class FlashCliTest {

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    private Run run(String... args) throws IOException {
        return runIn(Map.of("FLASH_LOGIN_FILE", dir.resolve("login.json").toString(),
                "FLASH_API_URL", "http://127.0.0.1:" + closedPort(),
                "FLASH_OIDC_URL", "http://127.0.0.1:" + closedPort() + "/realms/flash"), args);
    }

    private static Run runIn(Map<String, String> environment, String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = FlashCli.commandLine(environment);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** A port nothing listens on (taken, then released). */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void noCommandPrintsTheUsageAndExitsTwo() throws Exception {
        Run r = run();
        assertEquals(2, r.exit());
        for (String command : new String[]{"submit", "status", "watch", "logs", "why", "jobs", "cancel", "login", "console"}) {
            assertTrue(r.err().contains(command), "usage names " + command + ": " + r.err());
        }
        assertTrue(r.err().contains("FLASH_API_URL"), "usage names the environment: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void helpGoesToStandardOutAndSucceeds() throws Exception {
        Run r = run("--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("Usage: flash"), r.out());
        Run submit = run("submit", "--help");
        assertEquals(0, submit.exit());
        assertTrue(submit.out().contains("--timeout=SECONDS") && submit.out().contains("default: 600"), submit.out());
    }

    @Test
    void anUnknownCommandIsRefusedWithASuggestion() throws Exception {
        Run r = run("stauts", "job-1");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("Unmatched argument") && r.err().contains("status"), r.err());
    }

    @Test
    void aMissingOrMalformedArgumentNamesIt() throws Exception {
        Run missing = run("status");
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("Missing required parameter: 'JOB_ID'"), missing.err());

        Run page = run("status", "job-1", "second");
        assertEquals(2, page.exit());
        assertTrue(page.err().contains("PAGE") && page.err().contains("'second' is not an int"), page.err());

        Run timeout = run("submit", "job.yaml", "--timeout", "soon");
        assertEquals(2, timeout.exit());
        assertTrue(timeout.err().contains("--timeout") && timeout.err().contains("'soon'"), timeout.err());

        Run option = run("login", "--devcie");
        assertEquals(2, option.exit());
        assertTrue(option.err().contains("Unknown option: '--devcie'"), option.err());

        Run cancel = run("cancel");
        assertEquals(2, cancel.exit());
        assertTrue(cancel.err().contains("JOB_ID"), cancel.err());
    }

    @Test
    void aJobFileThatCannotBeReadOrIsWrongIsRefusedBeforeAnythingIsSent() throws Exception {
        Run absent = run("submit", dir.resolve("absent.yaml").toString());
        assertEquals(2, absent.exit());
        assertTrue(absent.err().contains("cannot read job file " + dir.resolve("absent.yaml")), absent.err());

        Path wrong = Files.writeString(dir.resolve("wrong.yaml"), "name: wrong\ntasks:\n  - name: a\n    image: [not, a, string]\n");
        Run bad = run("submit", wrong.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().startsWith(wrong + ": "), "the error names the file: " + bad.err());
        assertEquals("", bad.out(), "no job id printed for a job never sent");
    }

    @Test
    void schemaPrintsARecordsAvroSchemaOrSaysWhereTheNamesAre() throws Exception {
        Run r = run("schema", "JobResult");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"name\" : \"JobResult\""), r.out());
        Run unknown = run("schema", "JobResults");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("no record named JobResults; see schemas/src/main/avro"), unknown.err());
    }

    @Test
    void aStatusApiThatDoesNotAnswerIsSaidWithWhatToDo() throws Exception {
        for (String[] command : new String[][]{{"jobs"}, {"status", "job-1"}, {"frameworks"}, {"why", "job-1"}, {"logs", "job-1"}}) {
            Run r = run(command);
            assertEquals(1, r.exit(), String.join(" ", command) + ": " + r.err());
            assertTrue(r.err().contains("no status API at http://127.0.0.1:") && r.err().contains("bin/flash up"),
                    String.join(" ", command) + ": " + r.err());
        }
    }

    @Test
    void logoutWithoutALoginSaysSoAndALoginIsRemoved() throws Exception {
        Run none = run("logout");
        assertEquals(0, none.exit());
        assertTrue(none.err().contains("not signed in"), none.err());
        Files.writeString(dir.resolve("login.json"), "{}");
        Run out = run("logout");
        assertEquals(0, out.exit());
        assertTrue(out.err().contains("signed out (removed " + dir.resolve("login.json") + ")"), out.err());
        assertTrue(Files.notExists(dir.resolve("login.json")));
    }

    @Test
    void anIdentityProviderThatDoesNotAnswerIsSaidWithWhatToDo() throws Exception {
        Run r = run("login", "--device");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("does not answer") && r.err().contains("bin/flash up --secure"), r.err());
    }

    @Test
    void costSaysWhatASinceItCannotReadShouldLookLike() throws Exception {
        Run r = run("cost", "--since", "last tuesday");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--since: 'last tuesday' is not a date (2026-12-01)"), r.err());
        assertEquals(1, run("cost", "--since", "7d").exit(), "a span it reads, then a platform that does not answer");
    }

    @Test
    void costReadsDatesInstantsAndSpansBack() {
        Instant now = Instant.parse("2026-12-03T12:00:00Z");
        assertEquals(Instant.parse("2026-12-01T00:00:00Z").toEpochMilli(), CostCommands.since("2026-12-01", now));
        assertEquals(Instant.parse("2026-12-02T08:30:00Z").toEpochMilli(), CostCommands.since("2026-12-02T08:30:00Z", now));
        assertEquals(Instant.parse("2026-12-03T10:30:00Z").toEpochMilli(), CostCommands.since("90m", now));
        assertEquals(Instant.parse("2026-11-26T12:00:00Z").toEpochMilli(), CostCommands.since("7d", now));
    }
}
