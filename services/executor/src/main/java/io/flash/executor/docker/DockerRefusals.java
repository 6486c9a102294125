package io.flash.executor.docker;

import com.github.dockerjava.api.exception.BadRequestException;
import com.github.dockerjava.api.exception.NotFoundException;
import io.flash.executor.engine.EngineRefusal;
import io.flash.schema.FailureClass;
import java.util.regex.Pattern;

/**
 * The Docker engine's failures sorted by whose fault they are ({@link EngineRefusal}): a 400 for what
 * the task asks for (a command that does not exist, a value the engine cannot take) or an image its
 * registry does not have is the user's; anything else, credentials refused included, the platform's.
 */
final class DockerRefusals {

    private static final Pattern MISSING_IMAGE = Pattern.compile(
            "manifest unknown|manifest for .* not found|repository does not exist|invalid reference format|no such image",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern CREDENTIALS = Pattern.compile("unauthorized|authentication", Pattern.CASE_INSENSITIVE);

    /** @param image the image being pulled, or null when the failure is not a pull's */
    static EngineRefusal of(Throwable e, String image) {
        String words = DockerRuntime.engineWords(e);
        boolean badRequest = has(e, BadRequestException.class);
        if (image != null && !CREDENTIALS.matcher(words).find()
                && (MISSING_IMAGE.matcher(words).find() || (has(e, NotFoundException.class) && words.toLowerCase().contains("pull")))) {
            return new EngineRefusal(FailureClass.USER, "the image " + image + " cannot be found in its registry: " + words);
        }
        if (badRequest) {
            return new EngineRefusal(FailureClass.USER, "the engine refused what the task asks for: " + words);
        }
        return new EngineRefusal(FailureClass.INFRASTRUCTURE, words);
    }

    private static boolean has(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) return true;
        }
        return false;
    }

    private DockerRefusals() {
    }
}
