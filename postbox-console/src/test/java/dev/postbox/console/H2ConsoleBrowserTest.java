package dev.postbox.console;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The UI in a real browser: headless Chromium from the system's packages ({@code /usr/bin/chromium}, driven by
 * {@code /usr/bin/chromedriver}; both paths are given, so Selenium Manager never runs and nothing is downloaded)
 * against the console on H2 with the fixture's story. An operator opens the overview, searches the DEAD event of
 * order ORD-1 by the order number, opens it, sees why it failed and what waits behind it, retries it with a
 * reason, and finds the action in the audit page; the blocked aggregates page is looked at on the way. Each step
 * waits for its element and fails when it does not come; screenshots go to {@code target/screenshots/}.
 */
class H2ConsoleBrowserTest extends ConsoleFixture {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    private WebDriver browser;
    private WebDriverWait wait;
    private Path profile;
    private final Path screenshots = Path.of(System.getProperty("basedir", "."), "target", "screenshots");

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    /** The real clock here: the charts show the relays' stats of the last hour, which are written in real time. */
    @Override
    protected dev.postbox.Postbox newPostbox(java.util.function.Consumer<dev.postbox.Postbox.Builder> customizer) {
        return super.newPostbox(b -> {
            b.clock(java.time.Clock.systemUTC());
            customizer.accept(b);
        });
    }

    /** A relay that runs (with heartbeats, so with stats rows) publishes 40 more orders, then stops. */
    @BeforeEach
    final void someTrafficForTheCharts() throws Exception {
        inTx(c -> {
            for (int i = 100; i < 140; i++) {
                postbox.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo("ORDER_CREATED:ORD-" + i)
                        .aggregate("ORDER", "ORD-" + i).eventType("ORDER_CREATED").channel("MQ").topic("orders")
                        .payload("{\"order\":" + i + "}").build());
            }
            return null;
        });
        dev.postbox.spi.Publisher ok = records -> records.stream()
                .<java.util.concurrent.CompletionStage<dev.postbox.spi.PublishResult>>map(r ->
                        java.util.concurrent.CompletableFuture.completedFuture(dev.postbox.spi.PublishResult.published()))
                .toList();
        try (dev.postbox.relay.Relay relay = postbox.relay(ok).instanceId("relay-charts").batchSize(10)
                .heartbeatInterval(Duration.ofMillis(100)).clockSkewCheck(false).start()) {
            dev.postbox.testing.Await.until("the 40 orders published", Duration.ofSeconds(30), () -> {
                try {
                    return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox()
                            + " WHERE event_no LIKE 'ORDER_CREATED:ORD-1__' AND publish_status = " + dev.postbox.outbox.OutboxStatus.PUBLISHED.code()) == 40;
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            dev.postbox.testing.Await.until("a stats row", Duration.ofSeconds(30), () -> {
                try {
                    return queryLong("SELECT COUNT(*) FROM " + postbox.tables().relayStats() + " WHERE succeeded > 0") > 0;
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    @BeforeAll
    final void startBrowser() throws IOException {
        assertThat(new File(CHROMIUM).canExecute()).as(CHROMIUM + " (scripts/services.sh chromium installs it)").isTrue();
        assertThat(new File(CHROMEDRIVER).canExecute()).as(CHROMEDRIVER + " (scripts/services.sh chromium installs it)").isTrue();
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        profile = Files.createTempDirectory("postbox-console-chromium-");
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
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        Files.createDirectories(screenshots);
    }

    @AfterAll
    final void stopBrowser() throws IOException {
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

    private WebElement visible(String css) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
    }

    private void shot(String name) throws IOException {
        Files.write(screenshots.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private String severeBrowserLogs() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::toString)
                .reduce("", (a, b) -> a + "\n" + b);
    }

    /** Signs in as {@code user} with Basic credentials in the URL once (the browser keeps them) and opens {@code hash}. */
    private void open(ConsoleClient console, String user, String hash) {
        String base = console.base().toString();
        browser.get(base.replace("http://", "http://" + user + ":" + ConsoleClient.PASSWORD + "@"));
        browser.get(base + hash);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[data-test=me]"), user));
    }

    @Test
    void anOperatorFindsTheDeadEventOfAnOrderRetriesItAndSeesItInTheAuditLog() throws Exception {
        open(client, OPERATOR, "#/overview");

        // 1. the overview: backlog cards with the DEAD count, the charts, the problems
        WebElement outboxCard = visible("[data-test=backlog-card][data-kind=outbox]");
        assertThat(outboxCard.findElement(By.cssSelector("[data-test=backlog-dead]")).getText()).isEqualTo("7");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-test=chart-throughput] svg rect.bar-ok")));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-test=chart-latency] svg path.line-p99")));
        assertThat(visible("[data-test=instance-row]").getText()).contains("relay-charts");
        assertThat(browser.findElements(By.cssSelector("[data-test=problem]"))).isNotEmpty();
        assertThat(visible("[data-test=me]").getText()).contains(OPERATOR);
        shot("01-overview");

        // 2. search by the order number
        browser.findElement(By.cssSelector("[data-test=nav-search]")).click();
        WebElement input = visible("[data-test=search-input]");
        input.clear();
        input.sendKeys("ORD-1");
        browser.findElement(By.cssSelector("[data-test=search-button]")).click();
        WebElement row = visible("[data-test=result-row][data-event-no='ORDER_CREATED:ORD-1']");
        assertThat(row.getText()).contains("DEAD").contains("schema registry");
        assertThat(browser.findElements(By.cssSelector("[data-test=result-row]"))).hasSize(3);
        shot("02-search");

        // 3. its detail: why it failed, its timeline, what waits behind it
        row.findElement(By.cssSelector("[data-test=result-link]")).click();
        visible("[data-test=event-detail][data-status=DEAD]");
        assertThat(visible("[data-test=page-title]").getText()).isEqualTo("ORDER_CREATED:ORD-1");
        assertThat(browser.findElements(By.cssSelector("[data-test=timeline-entry]"))).isNotEmpty();
        assertThat(browser.findElement(By.cssSelector("[data-test=sequence-row].current")).getText()).contains("ORDER_CREATED:ORD-1");
        assertThat(browser.findElements(By.cssSelector("[data-test=sequence-row]"))).hasSize(3);
        assertThat(visible("[data-test=waiting-behind]").getText()).startsWith("2 ");
        assertThat(browser.findElements(By.cssSelector("[data-test=reveal-button]"))).as("an operator may not reveal").isEmpty();
        assertThat(browser.getPageSource()).doesNotContain(SECRET);
        shot("03-event-detail");

        // 4. the blocked aggregates page lists ORD-1 behind its DEAD head
        browser.findElement(By.cssSelector("[data-test=nav-blocked]")).click();
        WebElement blocked = visible("[data-test=blocked-row][data-aggregate='ORDER/ORD-1']");
        assertThat(blocked.getText()).contains("ORDER_CREATED:ORD-1").contains("DEAD");
        assertThat(blocked.findElements(By.cssSelector("[data-test=retry-head-button]"))).hasSize(1);
        shot("04-blocked");
        browser.navigate().back();

        // 5. retry with a reason
        visible("[data-test=event-detail][data-status=DEAD]");
        visible("[data-test=retry-button]").click();
        WebElement reason = visible("[data-test=reason-input]");
        WebElement confirm = browser.findElement(By.cssSelector("[data-test=confirm-button]"));
        assertThat(confirm.isEnabled()).as("no reason, no retry").isFalse();
        reason.sendKeys("schema registry fixed, drill");
        confirm.click();
        assertThat(visible("[data-test=action-result]").getText()).contains("PENDING");
        visible("[data-test=event-detail][data-status=PENDING]");
        assertThat(browser.findElements(By.cssSelector("[data-test=timeline-entry][data-kind=RETRIED]"))).isNotEmpty();
        shot("05-retried");

        // 6. the audit log shows who, what and why
        browser.findElement(By.cssSelector("[data-test=nav-audit]")).click();
        WebElement audit = visible("[data-test=audit-row][data-action=RETRY]");
        assertThat(audit.getText()).contains(OPERATOR).contains("schema registry fixed, drill").contains("ORDER_CREATED:ORD-1");
        audit.findElement(By.cssSelector("[data-test=audit-changes-link]")).click();
        assertThat(visible("[data-test=audit-change-row]").getText()).contains("ORDER_CREATED:ORD-1").contains("DEAD → PENDING");
        shot("06-audit");

        assertThat(browser.findElement(By.cssSelector("[data-test=error-banner]")).isDisplayed()).isFalse();
        assertThat(severeBrowserLogs()).as("browser errors").isEmpty();
    }

    @Test
    void anOperatorAllowedToSeePayloadsRevealsOneAndRetriesWhatASearchMatchesInBulk() throws Exception {
        open(client, REVEALER, "#/event/outbox/" + ConsoleClient.seg("ORDER_CREATED:" + ODD_ID));
        visible("[data-test=event-detail][data-status=DEAD]");
        assertThat(visible("[data-test=page-title]").getText()).isEqualTo("ORDER_CREATED:" + ODD_ID);
        assertThat(browser.getPageSource()).doesNotContain(SECRET);
        visible("[data-test=reveal-button]").click();
        visible("[data-test=reason-input]").sendKeys("customer asks what we sent");
        browser.findElement(By.cssSelector("[data-test=confirm-button]")).click();
        assertThat(visible("[data-test=payload]").getText()).contains(SECRET);
        assertThat(visible("[data-test=payload-headers]").getText()).contains(SECRET_HEADER);
        shot("07-payload-revealed");

        browser.get(client.base() + "#/search?kind=outbox&q=" + ConsoleClient.q("status:dead type:INVOICE_ISSUED"));
        wait.until(d -> d.findElements(By.cssSelector("[data-test=result-row]")).size() == 5);
        visible("[data-test=bulk-from-search]").click();
        WebElement query = visible("[data-test=bulk-query]");
        assertThat(query.getAttribute("value")).isEqualTo("status:dead type:INVOICE_ISSUED");
        WebElement cap = browser.findElement(By.cssSelector("[data-test=bulk-cap]"));
        cap.clear();
        cap.sendKeys("4");
        browser.findElement(By.cssSelector("[data-test=bulk-reason]")).sendKeys("invoice schema fixed");
        browser.findElement(By.cssSelector("[data-test=bulk-preview-button]")).click();
        assertThat(visible("[data-test=bulk-matching]").getText()).isEqualTo("more than 4");
        assertThat(browser.findElements(By.cssSelector("[data-test=bulk-sample-row]"))).hasSize(4);
        assertThat(visible("[data-test=bulk-aggregates]").getText()).isEqualTo("4");
        shot("08-bulk-dry-run");
        visible("[data-test=bulk-run-button]").click();
        assertThat(visible("[data-test=reason-input]").getAttribute("value")).isEqualTo("invoice schema fixed");
        browser.findElement(By.cssSelector("[data-test=confirm-button]")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[data-test=bulk-status]"), "DONE"));
        assertThat(visible("[data-test=bulk-result]").getText()).startsWith("4 changed");
        shot("09-bulk-done");

        browser.findElement(By.cssSelector("[data-test=nav-audit]")).click();
        WebElement bulk = visible("[data-test=audit-row][data-action=BULK_RETRY]");
        assertThat(bulk.getText()).contains(REVEALER).contains("invoice schema fixed").contains("dry run 4");
        assertThat(browser.findElements(By.cssSelector("[data-test=audit-row][data-action=REVEAL_PAYLOAD]"))).hasSize(1);
        assertThat(severeBrowserLogs()).as("browser errors").isEmpty();
    }

    @Test
    void aReadOnlyConsoleShowsNoActionButtons() throws Exception {
        open(readOnlyClient, ADMIN, "#/event/outbox/" + ConsoleClient.seg("ORDER_CREATED:ORD-1"));
        visible("[data-test=event-detail][data-status=DEAD]");
        assertThat(visible("[data-test=read-only]").getText()).isEqualTo("read-only");
        assertThat(browser.findElements(By.cssSelector("[data-test=retry-button]"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("[data-test=cancel-button]"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("[data-test=reveal-button]"))).as("revealing changes no event").hasSize(1);
        browser.findElement(By.cssSelector("[data-test=nav-blocked]")).click();
        visible("[data-test=blocked-row][data-aggregate='ORDER/ORD-1']");
        assertThat(browser.findElements(By.cssSelector("[data-test=retry-head-button]"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("[data-test=cancel-sequence-button]"))).isEmpty();
        browser.findElement(By.cssSelector("[data-test=nav-bulk]")).click();
        assertThat(visible("[data-test=bulk-preview-button]").isEnabled()).isFalse();
        shot("10-read-only");
    }
}
