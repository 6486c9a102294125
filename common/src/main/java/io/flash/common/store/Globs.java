package io.flash.common.store;

/**
 * POSIX-style wildcards in paths ({@code * ? [}), as uploads name their files: one definition for
 * ingest's validation, the TES translation and the executor.
 */
public final class Globs {

    private Globs() {
    }

    public static boolean isGlob(String path) {
        return path.matches(".*[*?\\[].*");
    }

    /** The part before the first wildcard, e.g. {@code out/reports/} of {@code out/reports/*.html}. */
    public static String fixedPrefix(String path) {
        return path.substring(0, path.length() - path.replaceFirst("^[^*?\\[]*", "").length());
    }
}
