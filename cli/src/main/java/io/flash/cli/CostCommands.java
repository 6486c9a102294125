package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code flash cost}: what jobs cost (docs/cost.md), the user's part (what the tasks did) and the
 * platform's (what it lost), in the catalogue's currency; read from the status API.
 */
final class CostCommands {

    @Command(name = "cost", description = {"What jobs cost (docs/cost.md): one job and its tasks, or every job since a time,",
            "per owner and per day; the user's part (what the tasks did) and the platform's (what it lost)."})
    static final class Cost extends FlashCli.Sub {
        @Spec
        CommandSpec spec;

        @Parameters(arity = "0..1", paramLabel = "JOB_ID")
        String jobId;

        @Option(names = "--owner", paramLabel = "O", description = "only this owner's jobs")
        String owner;

        @Option(names = "--since", paramLabel = "T", description = "jobs accepted since: 2026-12-01, 2026-12-01T08:00:00Z, or 24h / 7d back")
        String since;

        @Override
        public Integer call() throws Exception {
            if (jobId != null) return CostCommands.job(term(), flash.api(), jobId);
            Long from = null;
            if (since != null) {
                try {
                    from = CostCommands.since(since, Instant.now());
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--since: " + e.getMessage());
                }
            }
            return CostCommands.jobs(term(), flash.api(), owner, from);
        }
    }

    /** Jobs read per request while adding up. */
    private static final int PAGE = 1000;

    private CostCommands() {
    }

    /** One job: its total and each task's part. */
    static int job(Terminal term, String api, String jobId) throws Exception {
        JsonNode body = Api.get(term, api, "/jobs/" + jobId + "?size=10000", Duration.ofSeconds(30));
        if (body == null) return 1;
        JsonNode job = body.get("job");
        double user = job.get("userCost").asDouble(), platform = job.get("platformCost").asDouble();
        term.out().printf("job %s (%s) owner=%s state=%s: user %.6f, platform %.6f%n", job.get("jobId").asText(),
                job.get("name").asText(), job.path("owner").asText("-"), job.get("state").asText(), user, platform);
        term.out().printf("  %-28s %-10s %8s %12s %12s %12s%n", "TASK", "STATE", "ATTEMPTS", "PER HOUR", "USER", "PLATFORM");
        for (JsonNode t : body.get("tasks")) {
            term.out().printf("  %-28s %-10s %8d %12s %12.6f %12.6f%n", t.get("name").asText(), t.get("state").asText(),
                    t.get("attempts").asInt(), t.path("costPerHour").isNumber() ? String.format("%.6f", t.get("costPerHour").asDouble()) : "-",
                    t.get("userCost").asDouble(), t.get("platformCost").asDouble());
        }
        return 0;
    }

    /** Every job (of one owner) accepted since a time: per owner and per day (UTC). */
    static int jobs(Terminal term, String api, String owner, Long since) throws Exception {
        Map<String, Totals> byOwner = new TreeMap<>(), byDay = new TreeMap<>();
        Totals all = new Totals();
        for (int offset = 0; ; offset += PAGE) {
            StringBuilder query = new StringBuilder("/jobs?limit=" + PAGE + "&offset=" + offset);
            if (owner != null) query.append("&owner=").append(URLEncoder.encode(owner, StandardCharsets.UTF_8));
            if (since != null) query.append("&since=").append(since);
            JsonNode jobs = Api.get(term, api, query.toString(), Duration.ofSeconds(30));
            if (jobs == null) return 1;
            for (JsonNode j : jobs) {
                double user = j.get("userCost").asDouble(), platform = j.get("platformCost").asDouble();
                String day = Instant.ofEpochMilli(j.get("acceptedAt").asLong()).atZone(ZoneOffset.UTC).toLocalDate().toString();
                byOwner.computeIfAbsent(j.path("owner").asText("-"), k -> new Totals()).add(user, platform);
                byDay.computeIfAbsent(day, k -> new Totals()).add(user, platform);
                all.add(user, platform);
            }
            if (jobs.size() < PAGE) break;
        }
        print(term, "OWNER", byOwner);
        print(term, "DAY (UTC)", byDay);
        term.out().printf("%-24s %6d %12.6f %12.6f %12.6f%n", "all", all.jobs, all.user, all.platform, all.user + all.platform);
        return 0;
    }

    /**
     * When {@code --since} starts: a date (2026-12-01, midnight UTC), an instant (2026-12-01T08:00:00Z),
     * or a span back from now (90m, 24h, 7d).
     */
    static long since(String text, Instant now) {
        String t = text.trim();
        if (t.matches("\\d+[mhd]")) {
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            Duration span = switch (t.charAt(t.length() - 1)) {
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return now.minus(span).toEpochMilli();
        }
        try {
            return t.contains("T") ? Instant.parse(t).toEpochMilli() : LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a date (2026-12-01), an instant (2026-12-01T08:00:00Z)"
                    + " or a span back from now (90m, 24h, 7d)");
        }
    }

    private static void print(Terminal term, String heading, Map<String, Totals> rows) {
        term.out().printf("%-24s %6s %12s %12s %12s%n", heading, "JOBS", "USER", "PLATFORM", "TOTAL");
        rows.forEach((key, t) -> term.out().printf("%-24s %6d %12.6f %12.6f %12.6f%n", key, t.jobs, t.user, t.platform,
                t.user + t.platform));
        term.out().println();
    }

    private static final class Totals {
        int jobs;
        double user, platform;

        void add(double user, double platform) {
            jobs++;
            this.user += user;
            this.platform += platform;
        }
    }
}
