package io.flash.ingest.core.validation;

import io.flash.schema.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the Docker engine, the kernel or the executor would refuse at run time, refused at
 * submission instead, with the field and the reason: a value that passes here runs, or fails as the
 * program's own failure — never as an "infrastructure" failure retried on the platform's budget.
 */
final class ContainerRules {

    /** Names a shell can expand: Docker itself refuses '=' and NUL, POSIX shells anything else. */
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Flash sets these in every container (DockerRuntime.create); a job cannot change them. */
    private static final List<String> RESERVED_ENV = List.of("HOME");
    private static final String RESERVED_ENV_PREFIX = "FLASH_";
    /** Linux refuses one argument or environment string over 128 KiB (MAX_ARG_STRLEN). */
    static final int MAX_ARG_CHARS = 128 * 1024;
    /** The distribution spec lets registries refuse more than 255 characters of [host[:port]/]name. */
    static final int MAX_IMAGE_NAME_CHARS = 255;

    // [registry[:port]/]path[:tag][@sha256:digest], lower-case path components as Docker requires.
    private static final Pattern IMAGE = Pattern.compile(
            "(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                    + "(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?");

    private ContainerRules() {
    }

    /** The image reference, checked: required, printable, a valid [registry/]name[:tag][@sha256:digest]. */
    static String checkedImage(String raw, String field, List<FieldError> errors) {
        String image = raw == null ? "" : raw;
        int before = errors.size();
        image(raw, field, errors);
        if (image.isBlank()) {
            errors.add(Reasons.error(field, "required: the container image to run, e.g. flash/shell:1"));
        } else if (errors.size() == before && !IMAGE.matcher(image).matches()) {
            errors.add(Reasons.error(field, "'" + image + "' is not a valid image reference (expected [registry/]name[:tag][@sha256:digest], lower-case name)"));
        }
        return image;
    }

    /** The program and its arguments: an argv list, or a command line for /bin/sh -c; exactly one of them. */
    static List<String> argv(List<String> command, String shell, String field, List<FieldError> errors) {
        List<String> argv = new ArrayList<>();
        boolean hasArgv = command != null && !command.isEmpty();
        boolean hasShell = shell != null && !shell.isBlank();
        if (hasArgv && hasShell) {
            errors.add(Reasons.error(field, "give either command (argv list) or shell (a command line), not both"));
        } else if (hasShell) {
            argv.addAll(List.of("/bin/sh", "-c", shell));
        } else if (hasArgv && !command.get(0).isBlank()) {
            argv.addAll(command);
        } else {
            errors.add(Reasons.error(field, "empty: give command (an argv list) or shell (a command line run with /bin/sh -c)"));
        }
        command(command, shell, field, errors);
        return argv;
    }

    static void image(String raw, String field, List<FieldError> errors) {
        if (raw == null) return;
        if (hasControl(raw) || !raw.equals(raw.strip())) {
            errors.add(new FieldError(field, "'" + printable(raw) + "' has white space or control characters around or inside it; "
                    + "write the image reference alone, e.g. flash/shell:1"));
            return;
        }
        String name = raw.replaceFirst("@sha256:[a-f0-9]{64}$", "").replaceFirst(":[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$", "");
        if (name.length() > MAX_IMAGE_NAME_CHARS) {
            errors.add(new FieldError(field, "the image name is " + name.length() + " characters; registries refuse more than "
                    + MAX_IMAGE_NAME_CHARS + " (distribution spec)"));
        }
    }

    static void command(List<String> argv, String shell, String field, List<FieldError> errors) {
        if (shell != null) {
            argument(shell, field.replace("command", "shell"), errors);
        }
        if (argv != null) {
            for (int i = 0; i < argv.size(); i++) argument(argv.get(i), field + "[" + i + "]", errors);
        }
    }

    private static void argument(String value, String field, List<FieldError> errors) {
        if (value.indexOf('\0') >= 0) {
            errors.add(new FieldError(field, "contains a NUL character, which no program can receive as an argument"));
        } else if (value.length() > MAX_ARG_CHARS) {
            errors.add(new FieldError(field, value.length() + " characters is more than Linux passes in one argument ("
                    + MAX_ARG_CHARS + "); put long data in an input file"));
        }
    }

    static void env(Map<String, String> env, String field, List<FieldError> errors) {
        if (env == null) return;
        env.forEach((name, value) -> {
            String at = field + "." + printable(name);
            if (!ENV_NAME.matcher(name).matches()) {
                errors.add(new FieldError(at, "'" + printable(name) + "' is not an environment variable name: use letters, digits "
                        + "and '_', not starting with a digit (no '=', spaces or control characters)"));
            } else if (name.startsWith(RESERVED_ENV_PREFIX) || RESERVED_ENV.contains(name)) {
                errors.add(new FieldError(at, "'" + name + "' is set by Flash in every container (FLASH_*, HOME); choose another name"));
            }
            if (value == null) return;
            if (value.indexOf('\0') >= 0) {
                errors.add(new FieldError(at, "the value contains a NUL character, which an environment variable cannot hold"));
            } else if (value.length() + name.length() + 1 > MAX_ARG_CHARS) {
                errors.add(new FieldError(at, "the value is " + value.length() + " characters; Linux passes at most " + MAX_ARG_CHARS
                        + " per variable; put long data in an input file"));
            }
        });
    }

    /** The directory the program starts in: an absolute path in the container, without '..' or control characters. */
    static void workdir(String workdir, String field, List<FieldError> errors) {
        if (workdir == null) return;
        if (hasControl(workdir)) {
            errors.add(new FieldError(field, "'" + printable(workdir) + "' contains control characters"));
        } else if (!workdir.startsWith("/") || List.of(workdir.split("/")).contains("..")) {
            errors.add(new FieldError(field, "'" + workdir + "' is not an absolute path without '..': the engine needs one, "
                    + "e.g. /workspace/results or /work (the default)"));
        }
    }

    /** A path of the job workspace or an object URI: no control characters (NUL ends a path for the kernel). */
    static boolean pathIsPrintable(String path, String field, List<FieldError> errors) {
        if (!hasControl(path)) return true;
        errors.add(new FieldError(field, "'" + printable(path) + "' contains control characters, which a file path cannot hold"));
        return false;
    }

    static boolean hasControl(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) return true;
        }
        return false;
    }

    /** The value as it can be shown in a reason: control characters escaped, cut to 80 characters. */
    static String printable(String s) {
        String shown = escaped(s.length() > 80 ? s.substring(0, 80) : s);
        return s.length() > 80 ? shown + "…" : shown;
    }

    /** Control characters as \\uXXXX. */
    static String escaped(String s) {
        if (!hasControl(s)) return s;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.toString();
    }
}
