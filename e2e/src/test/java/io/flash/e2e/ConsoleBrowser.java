package io.flash.e2e;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

/**
 * Headless Chromium (Debian's, through Debian's chromedriver) looking at the web console, and the
 * screenshots it leaves under e2e/target/console/ for the record. Nothing is downloaded: both paths
 * are named, so Selenium Manager has nothing to find.
 */
final class ConsoleBrowser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of(System.getProperty("flash.home", ".."), "e2e", "target", "console");
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    final ChromeDriver driver;
    private final Path profile;

    ConsoleBrowser() throws IOException {
        for (String tool : new String[]{CHROMIUM, CHROMEDRIVER}) {
            if (!new File(tool).canExecute()) {
                throw new IllegalStateException(tool + " is missing: 'infra/prepare.sh --for-tests' installs Debian's chromium and chromium-driver");
            }
        }
        profile = Files.createTempDirectory("flash-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--no-first-run", "--window-size=1400,1100", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
    }

    void open(String url) {
        driver.get(url);
    }

    <T> T await(Duration timeout, String what, Function<ChromeDriver, T> condition) {
        try {
            return new WebDriverWait(driver, timeout, Duration.ofMillis(200)).withMessage(what).until(d -> condition.apply(driver));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("waited " + timeout.toSeconds() + " s for " + what + "; the page said: "
                    + driver.findElement(By.tagName("body")).getText(), e);
        }
    }

    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /** The element's text as the page has it now, or "" (read in the page: the page redraws often, so no element is held). */
    String text(String css) {
        Object text = script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css);
        return text == null ? "" : text.toString();
    }

    /** An attribute of the element as the page has it now, or null. */
    String attribute(String css, String name) {
        Object value = script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", css, name);
        return value == null ? null : value.toString();
    }

    /** Clicks the element the page has now. */
    void click(String css) {
        script("document.querySelector(arguments[0]).click()", css);
    }

    boolean present(String css) {
        return !driver.findElements(By.cssSelector(css)).isEmpty();
    }

    /** Saves the whole page (its full height) as e2e/target/console/NAME.png. */
    Path screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Number height = (Number) script("return Math.max(document.documentElement.scrollHeight, 900) + 200");
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(1400, Math.min(6000, height.intValue() + 40)));
        Path file = SCREENSHOTS.resolve(name + ".png");
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(1400, 1100));
        return file;
    }

    @Override
    public void close() throws IOException {
        driver.quit();
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
