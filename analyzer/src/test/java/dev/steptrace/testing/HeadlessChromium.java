package dev.steptrace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Headless Chromium driven over the Chrome DevTools Protocol with only the JDK (HttpClient's
 * WebSocket) and Jackson: opens a local HTML file, collects everything the page reports as an error
 * (console errors, uncaught exceptions, log errors, failed loads, and any request that leaves the
 * machine), evaluates JavaScript, and takes full-page screenshots. For the report, diff and decision
 * memo HTML tests.
 *
 * <pre>{@code
 * try (HeadlessChromium browser = HeadlessChromium.startOrSkip();
 *      HeadlessChromium.Page page = browser.open(file)) {
 *     assertEquals(List.of(), page.problems());
 *     JsonNode v = page.evaluate("document.title");
 *     page.screenshot(Path.of("target/shot.png"));
 * }
 * }</pre>
 *
 * <p>The browser is {@code $STEPTRACE_CHROMIUM}, else {@value #DEFAULT_EXECUTABLE}. When it is absent,
 * {@link #startOrSkip()} skips the calling test with a visible message, unless
 * {@code $STEPTRACE_REQUIRE_BROWSER} is set (CI sets it), where it fails instead.
 */
public final class HeadlessChromium implements AutoCloseable {
    public static final String DEFAULT_EXECUTABLE = "/usr/bin/chromium";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(45);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path profile;
    private final int port;
    private final HttpClient http;
    private final List<Page> pages = new ArrayList<>();

    private HeadlessChromium(Process process, Path profile, int port) {
        this.process = process;
        this.profile = profile;
        this.port = port;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** The browser to use: {@code $STEPTRACE_CHROMIUM} or {@value #DEFAULT_EXECUTABLE}. */
    public static Path executable() {
        String env = System.getenv("STEPTRACE_CHROMIUM");
        return Path.of(env != null && !env.isBlank() ? env : DEFAULT_EXECUTABLE);
    }

    /**
     * Starts the browser, or skips the calling test (with a message on stderr and in the test report)
     * when it is not installed; fails instead when {@code $STEPTRACE_REQUIRE_BROWSER} is set.
     */
    public static HeadlessChromium startOrSkip() throws IOException {
        Path exe = executable();
        if (!Files.isExecutable(exe)) {
            String message = "SKIPPED: browser test needs headless Chromium at " + exe
                    + " (Debian: apt-get install -y chromium; or set STEPTRACE_CHROMIUM)";
            String required = System.getenv("STEPTRACE_REQUIRE_BROWSER");
            if (required != null && !required.isBlank()) {
                Assertions.fail(message.replace("SKIPPED", "FAILED") + "; STEPTRACE_REQUIRE_BROWSER is set, so it must run");
            }
            System.err.println(message);
            Assumptions.abort(message);
        }
        return start(exe);
    }

    /** Starts {@code exe} headless with a throwaway profile and DevTools on a free local port. */
    public static HeadlessChromium start(Path exe) throws IOException {
        Path profile = Files.createTempDirectory("steptrace-chromium-");
        Path log = profile.resolve("chromium.log");
        List<String> cmd = List.of(exe.toString(),
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=" + profile,
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--disable-default-apps", "--no-first-run", "--no-default-browser-check",
                "--disable-crash-reporter", "--disable-breakpad", "--mute-audio", "--hide-scrollbars",
                "--window-size=1280,900", "about:blank");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Path portFile = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try {
            while (true) {
                if (Files.isRegularFile(portFile)) {
                    List<String> lines = Files.readAllLines(portFile);
                    if (!lines.isEmpty() && !lines.get(0).isBlank()) {
                        return new HeadlessChromium(p, profile, Integer.parseInt(lines.get(0).strip()));
                    }
                }
                if (!p.isAlive()) {
                    throw new IOException(exe + " exited with " + p.exitValue() + " before DevTools was up: " + tail(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(exe + " did not open DevTools within " + START_TIMEOUT.toSeconds() + " s: " + tail(log));
                }
                Thread.sleep(50);
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            kill(p);
            deleteTree(profile);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting " + exe, e);
            }
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    /** Opens {@code file} in a new tab and waits for its load event. */
    public Page open(Path file) throws IOException {
        JsonNode target = JSON.readTree(httpCall("PUT", "/json/new?about:blank"));
        Page page = new Page(target.path("id").asText(), URI.create(target.path("webSocketDebuggerUrl").asText()));
        pages.add(page);
        page.load(file.toAbsolutePath().toUri().toString());
        return page;
    }

    private String httpCall(String method, String path) throws IOException {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(CALL_TIMEOUT).build();
        try {
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new IOException("DevTools " + method + " " + path + ": HTTP " + resp.statusCode() + " " + resp.body());
            }
            return resp.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void close() {
        for (Page page : pages) {
            page.close();
        }
        kill(process);
        deleteTree(profile);
    }

    /** Ends the browser process this helper started (children first), by handle, never by name. */
    private static void kill(Process p) {
        List<ProcessHandle> children = p.descendants().toList();
        p.destroy();
        children.forEach(ProcessHandle::destroy);
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                children.forEach(ProcessHandle::destroyForcibly);
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path dir) {
        for (int attempt = 0; attempt < 3; attempt++) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
                return;
            } catch (IOException | RuntimeException e) {
                try {
                    Thread.sleep(200); // the browser may still be writing its profile
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** One tab: a DevTools session over a WebSocket. */
    public final class Page implements AutoCloseable {
        private final String targetId;
        private final WebSocket socket;
        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
        private final List<JsonNode> events = new CopyOnWriteArrayList<>();
        private final List<Consumer<JsonNode>> listeners = new CopyOnWriteArrayList<>();
        private final List<String> problems = new CopyOnWriteArrayList<>();

        private Page(String targetId, URI ws) throws IOException {
            this.targetId = targetId;
            try {
                this.socket = http.newWebSocketBuilder().connectTimeout(CALL_TIMEOUT)
                        .buildAsync(ws, new Listener()).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("cannot connect to DevTools at " + ws + ": " + e, e);
            }
            listeners.add(this::collectProblem);
        }

        private void load(String url) throws IOException {
            call("Runtime.enable", null);
            call("Log.enable", null);
            call("Page.enable", null);
            call("Network.enable", null);
            ObjectNode metrics = JSON.createObjectNode().put("width", 1280).put("height", 900)
                    .put("deviceScaleFactor", 1).put("mobile", false);
            call("Emulation.setDeviceMetricsOverride", metrics);
            CompletableFuture<JsonNode> loaded = nextEvent("Page.loadEventFired");
            JsonNode nav = call("Page.navigate", JSON.createObjectNode().put("url", url));
            if (nav.hasNonNull("errorText")) {
                throw new IOException("navigation to " + url + " failed: " + nav.get("errorText").asText());
            }
            await(loaded, "the load event of " + url);
            // Let late console messages and exceptions arrive before anyone reads problems().
            evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))");
        }

        /** Console errors, uncaught exceptions, log errors, failed loads and non-local requests, in order. */
        public List<String> problems() {
            return List.copyOf(problems);
        }

        /** All DevTools events received so far (for checks this class does not make). */
        public List<JsonNode> events() {
            return List.copyOf(events);
        }

        /** Evaluates {@code expression} (promises awaited) and returns its value as JSON. */
        public JsonNode evaluate(String expression) throws IOException {
            ObjectNode params = JSON.createObjectNode().put("expression", expression)
                    .put("returnByValue", true).put("awaitPromise", true);
            JsonNode result = call("Runtime.evaluate", params);
            if (result.has("exceptionDetails")) {
                JsonNode d = result.get("exceptionDetails");
                throw new IOException("JavaScript failed: " + d.path("exception").path("description").asText(d.path("text").asText()));
            }
            return result.path("result").path("value");
        }

        /** Saves a PNG of the whole page (up to 16384 px tall) and returns its size in bytes. */
        public long screenshot(Path png) throws IOException {
            JsonNode m = call("Page.getLayoutMetrics", null);
            JsonNode size = m.has("cssContentSize") ? m.get("cssContentSize") : m.path("contentSize");
            double w = Math.max(1, Math.ceil(size.path("width").asDouble(1280)));
            double h = Math.max(1, Math.min(16384, Math.ceil(size.path("height").asDouble(900))));
            ObjectNode clip = JSON.createObjectNode().put("x", 0).put("y", 0).put("width", w).put("height", h).put("scale", 1);
            ObjectNode params = JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true);
            params.set("clip", clip);
            byte[] bytes = Base64.getDecoder().decode(call("Page.captureScreenshot", params).path("data").asText());
            if (png.toAbsolutePath().getParent() != null) {
                Files.createDirectories(png.toAbsolutePath().getParent());
            }
            Files.write(png, bytes);
            return bytes.length;
        }

        /** Sends one DevTools command and waits for its result. */
        public JsonNode call(String method, JsonNode params) throws IOException {
            int id = ids.incrementAndGet();
            ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
            if (params != null) {
                msg.set("params", params);
            }
            CompletableFuture<JsonNode> reply = new CompletableFuture<>();
            pending.put(id, reply);
            socket.sendText(JSON.writeValueAsString(msg), true);
            JsonNode r = await(reply, method);
            if (r.has("error")) {
                throw new IOException("DevTools " + method + ": " + r.get("error"));
            }
            return r.path("result");
        }

        private CompletableFuture<JsonNode> nextEvent(String method) {
            CompletableFuture<JsonNode> f = new CompletableFuture<>();
            listeners.add(e -> {
                if (method.equals(e.path("method").asText())) {
                    f.complete(e.path("params"));
                }
            });
            return f;
        }

        private JsonNode await(CompletableFuture<JsonNode> f, String what) throws IOException {
            try {
                return f.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for " + what, e);
            } catch (ExecutionException e) {
                throw new IOException("DevTools connection failed waiting for " + what + ": " + e.getCause(), e);
            } catch (TimeoutException e) {
                throw new IOException("no answer from the browser within " + CALL_TIMEOUT.toSeconds() + " s for " + what, e);
            }
        }

        private void collectProblem(JsonNode e) {
            JsonNode p = e.path("params");
            switch (e.path("method").asText()) {
                case "Runtime.consoleAPICalled" -> {
                    String type = p.path("type").asText();
                    if (type.equals("error") || type.equals("assert")) {
                        List<String> args = new ArrayList<>();
                        p.path("args").forEach(a -> args.add(a.has("value") ? a.get("value").asText() : a.path("description").asText()));
                        problems.add("console." + type + ": " + String.join(" ", args));
                    }
                }
                case "Runtime.exceptionThrown" -> {
                    JsonNode d = p.path("exceptionDetails");
                    problems.add("uncaught exception: " + d.path("exception").path("description").asText(d.path("text").asText()));
                }
                case "Log.entryAdded" -> {
                    JsonNode entry = p.path("entry");
                    if ("error".equals(entry.path("level").asText())) {
                        problems.add("log error (" + entry.path("source").asText() + "): " + entry.path("text").asText()
                                + (entry.hasNonNull("url") ? " " + entry.get("url").asText() : ""));
                    }
                }
                case "Network.requestWillBeSent" -> {
                    String url = p.path("request").path("url").asText();
                    if (!(url.startsWith("file:") || url.startsWith("data:") || url.startsWith("about:"))) {
                        problems.add("request leaves the file: " + url);
                    }
                }
                case "Network.loadingFailed" -> problems.add("load failed: " + p.path("errorText").asText()
                        + (p.path("blockedReason").isMissingNode() ? "" : " (" + p.path("blockedReason").asText() + ")"));
                default -> { }
            }
        }

        @Override
        public void close() {
            try {
                socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                socket.abort();
            }
            try {
                httpCall("GET", "/json/close/" + targetId);
            } catch (IOException | RuntimeException e) {
                // the browser is about to go anyway
            }
        }

        private final class Listener implements WebSocket.Listener {
            private final StringBuilder buf = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                buf.append(data);
                if (last) {
                    String text = buf.toString();
                    buf.setLength(0);
                    try {
                        JsonNode msg = JSON.readTree(text);
                        if (msg.has("id")) {
                            CompletableFuture<JsonNode> f = pending.remove(msg.get("id").asInt());
                            if (f != null) {
                                f.complete(msg);
                            }
                        } else {
                            events.add(msg);
                            listeners.forEach(l -> l.accept(msg));
                        }
                    } catch (IOException e) {
                        problems.add("unreadable DevTools message: " + e.getMessage());
                    }
                }
                ws.request(1);
                return null;
            }

            @Override
            public void onError(WebSocket ws, Throwable error) {
                pending.values().forEach(f -> f.completeExceptionally(error));
            }

            @Override
            public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
                IOException closed = new IOException("DevTools socket closed: " + statusCode + " " + reason);
                pending.values().forEach(f -> f.completeExceptionally(closed));
                return null;
            }
        }
    }

    // ---- checks every steptrace page passes ----

    /** The text of each element of a JSON array evaluated in the page. */
    public static List<String> strings(JsonNode array) {
        List<String> l = new ArrayList<>();
        array.forEach(n -> l.add(n.asText()));
        return l;
    }

    /** Self-contained: every link stays in the page. */
    public static void assertOnlyInPageLinks(JsonNode hrefs) {
        for (String href : strings(hrefs)) {
            Assertions.assertTrue(href.startsWith("#"), "only in-page links: " + href);
        }
    }

    /** {@code expected} charts, each drawn with a height (in CSS px) above 100. */
    public static void assertChartsDrawn(JsonNode heights, int expected) {
        List<String> charts = strings(heights);
        Assertions.assertEquals(expected, charts.size(), "charts on the page");
        charts.forEach(h -> Assertions.assertTrue(Double.parseDouble(h) > 100, "chart drawn with a height: " + h));
    }
}
