package dev.postbox.examples.orders;

import dev.postbox.examples.orders.demo.DemoConsoleLogin;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's drill of issue 15 in a real browser against the running demo: the order service as
 * {@code scripts/demo} runs it (its application.yml: console at /postbox, the demo login, the SKU-POISON consumer,
 * the short backoff, the seeded orders) on a free port over H2, driven in headless Chromium from the system's
 * packages ({@code /usr/bin/chromium} and {@code /usr/bin/chromedriver}, both given, so nothing is downloaded).
 *
 * <p>A poison order's ORDER_CREATED goes DEAD; the operator logs in, finds it by the order number, opens it, reads
 * why it failed in the timeline, fixes the cause (the demo's switch), retries it with a reason and sees it
 * PUBLISHED. A second poison order with two notes waiting behind its DEAD head is on the Blocked page; cancelling
 * the head releases the notes, which are published. Both actions are in the audit log with the actor and reason.
 * Every step saves a screenshot under {@code target/screenshots/} and fails when its element does not come; with
 * {@code -Dpostbox.screenshots.update=true} the README's four pictures in {@code docs/images/} are replaced too.
 */
class H2ConsoleDrillBrowserTest extends OrderServiceE2eBase {

    static final TestDatabase DB = TestDatabase.h2();
    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    /** Screenshot of a step → the README picture it becomes. */
    static final Map<String, String> README_IMAGES = Map.of("01-overview", "console-overview.png",
            "02-search", "console-search.png", "03-event-detail", "console-event-detail.png",
            "06-blocked", "console-blocked.png");

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        register(registry, DB);
    }

    @Override
    protected TestDatabase database() {
        return DB;
    }

    @Autowired
    DemoConsoleLogin.Login login;

    private WebDriver browser;
    private WebDriverWait wait;
    private Path profile;
    private final Path screenshots = Path.of("target", "screenshots").toAbsolutePath();
    private final List<String> shots = new ArrayList<>();

    @BeforeAll
    void startBrowser() throws IOException {
        assertThat(new File(CHROMIUM).canExecute()).as(CHROMIUM + " (scripts/services.sh installs it)").isTrue();
        assertThat(new File(CHROMEDRIVER).canExecute()).as(CHROMEDRIVER + " (scripts/services.sh installs it)").isTrue();
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        profile = Files.createTempDirectory("postbox-drill-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1400,1000", "--lang=en-US");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        Files.createDirectories(screenshots);
    }

    @AfterAll
    void stopBrowser() throws IOException {
        try {
            if (browser != null) {
                browser.quit();
            }
        } finally {
            if (profile != null) {
                try (Stream<Path> files = Files.walk(profile)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private String console() {
        return "http://127.0.0.1:" + port + "/postbox/";
    }

    private WebElement visible(String css) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
    }

    private void shot(String name) throws IOException {
        Path file = screenshots.resolve(name + ".png");
        Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        shots.add(name);
        String readme = README_IMAGES.get(name);
        if (readme != null && Boolean.getBoolean("postbox.screenshots.update")) {
            Path images = Path.of("").toAbsolutePath().resolve("../../docs/images").normalize();
            Files.createDirectories(images);
            Files.copy(file, images.resolve(readme), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private String severeBrowserLogs() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .filter(e -> !e.getMessage().contains("/favicon.ico")) // the demo's own JSON page (step 4) has no icon
                .map(LogEntry::toString)
                .reduce("", (a, b) -> a + "\n" + b);
    }

    /** The status of one of the order's outbox events, as {@code GET /orders/{orderNo}} shows it. */
    private String status(String orderNo, String eventNo) throws Exception {
        for (var e : json(get("/orders/" + orderNo)).path("events")) {
            if (e.path("eventNo").asString().equals(eventNo)) {
                return e.path("status").asString();
            }
        }
        return null;
    }

    private void awaitStatus(String orderNo, String eventNo, String status) throws Exception {
        assertThat(await(Duration.ofSeconds(30), () -> {
            try {
                return status.equals(status(orderNo, eventNo));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        })).as(eventNo + " becomes " + status + " (it is " + status(orderNo, eventNo) + ")").isTrue();
    }

    private String note(String orderNo, String text) throws Exception {
        HttpResponse<String> r = post("/orders/" + orderNo + "/notes", "{\"text\":\"" + text + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json(r).path("eventNo").asString();
    }

    private void reason(String why) {
        WebElement reason = visible("[data-test=reason-input]");
        WebElement confirm = browser.findElement(By.cssSelector("[data-test=confirm-button]"));
        assertThat(confirm.isEnabled()).as("no reason, no action").isFalse();
        reason.sendKeys(why);
        confirm.click();
    }

    @Test
    void anOperatorFixesAPoisonOrderAndReleasesABlockedOneInTheConsole() throws Exception {
        // the failures: two SKU-POISON orders; the second gets two notes, which wait behind its DEAD head
        String poisoned = place("drill", "SKU-POISON", 1, "9.90");
        String blocked = place("drill", "SKU-POISON", 2, "19.80");
        String firstNote = note(blocked, "leave it at the door");
        String secondNote = note(blocked, "ring twice");
        String poisonedEvent = "ORDER_CREATED:" + poisoned;
        String blockedHead = "ORDER_CREATED:" + blocked;
        awaitStatus(poisoned, poisonedEvent, "DEAD");
        awaitStatus(blocked, blockedHead, "DEAD");
        assertThat(status(blocked, firstNote)).isEqualTo("PENDING");

        // 1. log in (the demo's login of this start) and look at the overview
        browser.get(console().replace("http://", "http://" + login.user() + ":" + login.password() + "@"));
        browser.get(console() + "#/overview");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[data-test=me]"), login.user()));
        WebElement outbox = visible("[data-test=backlog-card][data-kind=outbox]");
        wait.until(d -> outbox.findElement(By.cssSelector("[data-test=backlog-dead]")).getText().equals("2"));
        visible("[data-test=instance-row]");
        assertThat(browser.findElements(By.cssSelector("[data-test=problem]"))).isNotEmpty();
        // the relay's heartbeat (every 10 s) writes the stats the charts draw; the page refreshes itself
        new WebDriverWait(browser, Duration.ofSeconds(60)).until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("[data-test=chart-throughput] svg rect.bar-ok")));
        shot("01-overview");

        // 2. find the poison order by its order number
        browser.findElement(By.cssSelector("[data-test=nav-search]")).click();
        WebElement input = visible("[data-test=search-input]");
        input.clear();
        input.sendKeys(poisoned);
        browser.findElement(By.cssSelector("[data-test=search-button]")).click();
        WebElement row = visible("[data-test=result-row][data-event-no='" + poisonedEvent + "']");
        assertThat(row.getText()).contains("DEAD").contains("unknown SKU SKU-POISON");
        shot("02-search");

        // 3. open it and read why it failed: each failed attempt in the timeline, with the error
        row.findElement(By.cssSelector("[data-test=result-link]")).click();
        visible("[data-test=event-detail][data-status=DEAD]");
        assertThat(visible("[data-test=page-title]").getText()).isEqualTo(poisonedEvent);
        List<WebElement> failed = browser.findElements(By.cssSelector("[data-test=timeline-entry][data-kind=ATTEMPT_FAILED]"));
        assertThat(failed).as("the failed attempts").hasSizeGreaterThanOrEqualTo(5);
        assertThat(failed.get(0).getText()).contains("stock service: unknown SKU SKU-POISON");
        assertThat(browser.findElements(By.cssSelector("[data-test=timeline-entry][data-kind=DEAD]"))).hasSize(1);
        shot("03-event-detail");

        // 4. fix the cause (the demo's switch, as a deployment would)
        assertThat(post("/demo/poison/fix", "").body()).contains("\"fixed\":true");
        browser.get("http://127.0.0.1:" + port + "/demo/poison");
        assertThat(browser.getPageSource()).contains("\"fixed\":true");
        shot("04-cause-fixed");

        // 5. retry it with a reason, and see it PUBLISHED
        browser.get(console() + "#/event/outbox/" + java.net.URLEncoder.encode(poisonedEvent, java.nio.charset.StandardCharsets.UTF_8));
        visible("[data-test=event-detail][data-status=DEAD]");
        visible("[data-test=retry-button]").click();
        reason("stock service knows SKU-POISON now (drill)");
        assertThat(visible("[data-test=action-result]").getText()).contains("PENDING");
        awaitStatus(poisoned, poisonedEvent, "PUBLISHED");
        browser.navigate().refresh();
        visible("[data-test=event-detail][data-status=PUBLISHED]");
        assertThat(browser.findElements(By.cssSelector("[data-test=timeline-entry][data-kind=RETRIED]"))).isNotEmpty();
        shot("05-retried-published");

        // 6. the second order is blocked: its DEAD head holds back the two notes
        browser.findElement(By.cssSelector("[data-test=nav-blocked]")).click();
        WebElement blockedRow = visible("[data-test=blocked-row][data-aggregate='ORDER/" + blocked + "']");
        assertThat(blockedRow.getText()).contains(blockedHead).contains("DEAD").contains("2");
        shot("06-blocked");

        // 7. cancel the head (the customer voided the order): the notes flow
        blockedRow.findElement(By.cssSelector("[data-test=cancel-head-button]")).click();
        reason("order voided by the customer, release the notes (drill)");
        visible("[data-test=action-result]");
        awaitStatus(blocked, firstNote, "PUBLISHED");
        awaitStatus(blocked, secondNote, "PUBLISHED");
        assertThat(status(blocked, blockedHead)).isEqualTo("CANCELLED");
        browser.get(console() + "#/search?kind=outbox&q=" + blocked);
        wait.until(d -> d.findElements(By.cssSelector("[data-test=result-row]")).size() == 3);
        assertThat(visible("[data-test=result-row][data-event-no='" + firstNote + "']").getText()).contains("PUBLISHED");
        assertThat(visible("[data-test=result-row][data-event-no='" + secondNote + "']").getText()).contains("PUBLISHED");
        assertThat(visible("[data-test=result-row][data-event-no='" + blockedHead + "']").getText()).contains("CANCELLED");
        shot("07-released");

        // 8. both actions in the audit log, with who and why
        browser.findElement(By.cssSelector("[data-test=nav-audit]")).click();
        WebElement retry = visible("[data-test=audit-row][data-action=RETRY]");
        assertThat(retry.getText()).contains(login.user()).contains("stock service knows SKU-POISON now (drill)")
                .contains(poisonedEvent);
        WebElement cancel = visible("[data-test=audit-row][data-action=CANCEL]");
        assertThat(cancel.getText()).contains(login.user()).contains("order voided by the customer").contains(blockedHead);
        shot("08-audit");

        assertThat(browser.findElement(By.cssSelector("[data-test=error-banner]")).isDisplayed()).isFalse();
        assertThat(severeBrowserLogs()).as("browser errors").isEmpty();
        assertThat(shots).containsExactly("01-overview", "02-search", "03-event-detail", "04-cause-fixed",
                "05-retried-published", "06-blocked", "07-released", "08-audit");
        for (String s : shots) {
            assertThat(screenshots.resolve(s + ".png")).isNotEmptyFile();
        }
    }
}
