package io.flash.e2e;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The images a test runs must exist on the local engine before it starts: no registry can be
 * reached, so a missing one would otherwise surface minutes later as a pull retry loop (in
 * Testcontainers) or as an infrastructure failure retried by Flash. Every image comes from a recipe
 * under {@code infra/images}; the message names the image and the recipe.
 */
final class RequiredImages {

    private RequiredImages() {
    }

    /** Fails at once, naming each image that is missing and what builds it. */
    static void require(String recipe, List<String> images) throws Exception {
        List<String> missing = images.stream().filter(image -> !present(image)).toList();
        if (!missing.isEmpty()) {
            throw new AssertionError("image(s) " + String.join(", ", missing) + " missing from the local Docker engine"
                    + " (nothing can be pulled here): " + recipe + " builds them; 'bin/flash prepare' runs it");
        }
    }

    private static boolean present(String image) {
        try {
            Process inspect = new ProcessBuilder("docker", "image", "inspect", "--format", "{{.Id}}", image)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return inspect.waitFor(30, TimeUnit.SECONDS) && inspect.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
