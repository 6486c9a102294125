package io.flash.e2e;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** A missing image fails a test at once, naming the image and its recipe, instead of a pull retry loop. */
class RequiredImagesTest {

    @Test
    void aMissingImageIsNamedWithItsRecipe() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> RequiredImages.require("infra/images/build-all.sh", List.of("flash/never-built:0")));
        assertTrue(e.getMessage().contains("flash/never-built:0") && e.getMessage().contains("infra/images/build-all.sh"), e.getMessage());
    }
}
