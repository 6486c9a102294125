package io.flash.executor.sim;

import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import java.util.function.ToLongFunction;

/**
 * How long a simulated attempt "runs", drawn per attempt:
 * {@code fixed:2s}, {@code uniform:100ms..5s}, {@code exp:30s} (mean) or {@code lognormal:1m,0.8}
 * (median, sigma of the log). Durations take ms, s, m or h.
 */
public final class RunTimes {

    private final String spec;
    private final ToLongFunction<Random> sampler;

    private RunTimes(String spec, ToLongFunction<Random> sampler) {
        this.spec = spec;
        this.sampler = sampler;
    }

    public static RunTimes parse(String spec) {
        String text = spec.strip().toLowerCase(Locale.ROOT);
        int colon = text.indexOf(':');
        if (colon < 0) throw invalid(spec, "expected kind:parameters");
        String kind = text.substring(0, colon), args = text.substring(colon + 1);
        switch (kind) {
            case "fixed" -> {
                long ms = millis(args, spec);
                return new RunTimes(spec, random -> ms);
            }
            case "uniform" -> {
                String[] range = args.split("\\.\\.");
                if (range.length != 2) throw invalid(spec, "expected uniform:MIN..MAX");
                long min = millis(range[0], spec), max = millis(range[1], spec);
                if (max < min) throw invalid(spec, "MAX is below MIN");
                return new RunTimes(spec, random -> min + (long) (random.nextDouble() * (max - min)));
            }
            case "exp" -> {
                long mean = millis(args, spec);
                return new RunTimes(spec, random -> (long) (-mean * Math.log(1 - random.nextDouble())));
            }
            case "lognormal" -> {
                String[] p = args.split(",");
                if (p.length != 2) throw invalid(spec, "expected lognormal:MEDIAN,SIGMA");
                double mu = Math.log(Math.max(1, millis(p[0], spec)));
                double sigma;
                try {
                    sigma = Double.parseDouble(p[1].strip());
                } catch (NumberFormatException e) {
                    throw invalid(spec, "SIGMA is not a number");
                }
                return new RunTimes(spec, random -> (long) Math.exp(mu + sigma * random.nextGaussian()));
            }
            default -> throw invalid(spec, "unknown kind '" + kind + "' (fixed, uniform, exp, lognormal)");
        }
    }

    public Duration next(Random random) {
        return Duration.ofMillis(Math.max(0, sampler.applyAsLong(random)));
    }

    @Override
    public String toString() {
        return spec;
    }

    private static long millis(String text, String spec) {
        String t = text.strip();
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) i++;
        if (i == 0) throw invalid(spec, "'" + t + "' is not a duration like 500ms, 2s, 1m");
        double value = Double.parseDouble(t.substring(0, i));
        double unit = switch (t.substring(i)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            case "m" -> 60_000;
            case "h" -> 3_600_000;
            default -> throw invalid(spec, "'" + t + "' needs a unit: ms, s, m or h");
        };
        return Math.round(value * unit);
    }

    private static IllegalArgumentException invalid(String spec, String why) {
        return new IllegalArgumentException("flash.sim.run-time '" + spec + "': " + why
                + "; e.g. fixed:2s, uniform:100ms..5s, exp:30s, lognormal:1m,0.8");
    }
}
