// Headless-browser test of the memory browser page (/admin/): real Debian
// Chromium driven by playwright-core over the real admin API on a seeded
// SQLite store (admin/internal/uiserver). It finds a seeded memory, deletes
// it through the page, sees it gone (also after a reload and through the
// API), and saves screenshots under test-artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { once } from "node:events";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const artifacts = join(root, "test-artifacts");
const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const token = "browser-test-admin-token";

let tmp, server, baseURL, context;

// startServer builds and starts the seeded admin server and resolves with
// its URL once it prints "listening http://...".
async function startServer() {
  const bin = join(tmp, "uiserver");
  execFileSync("go", ["build", "-o", bin, "./admin/internal/uiserver"], { cwd: root, stdio: "inherit" });
  const proc = spawn(bin, ["-db", join(tmp, "ui.db")], {
    env: { ...process.env, MEMPROXY_ADMIN_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const url = await new Promise((resolveURL, reject) => {
    const timer = setTimeout(() => reject(new Error("uiserver did not start: " + out)), 60000);
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/listening (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolveURL(m[1]);
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error("uiserver exited with " + code + ": " + out));
    });
  });
  return { proc, url };
}

async function api(method, path) {
  const res = await fetch(baseURL + "/admin/v1" + path, { method, headers: { Authorization: "Bearer " + token } });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium not found at ${chromiumPath} (apt-get install -y chromium)`);
  tmp = mkdtempSync(join(tmpdir(), "memproxy-browser-"));
  mkdirSync(artifacts, { recursive: true });
  const s = await startServer();
  server = s.proc;
  baseURL = s.url;
  const profile = join(tmp, "profile");
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    viewport: { width: 1280, height: 900 },
  });
});

after(async () => {
  if (context) await context.close();
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("the page finds a seeded memory, deletes it and sees it gone", async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));

  await page.goto(baseURL + "/admin/");
  await page.getByTestId("token").fill(token);
  await page.getByTestId("connect").click();
  await page.getByTestId("status").getByText("Connected.").waitFor();
  await page.locator('#users button[data-user="alice"]').click();

  const tea = page.getByTestId("memory").filter({ hasText: "favourite tea is genmaicha" });
  await tea.waitFor();
  // Memories are grouped by tier and carry a retention bar.
  assert.equal(await page.locator('[data-tier="semantic"]').getByText("genmaicha").count(), 1);
  assert.equal(await page.locator('[data-tier="profile"]').getByText("concise answers").count(), 1);
  const width = await tea.locator(".bar > span").evaluate((el) => el.style.width);
  assert.match(width, /^\d+%$/);
  const id = await tea.getAttribute("data-id");
  assert.match(id, /^[0-9a-f]{16}$/);
  await page.screenshot({ path: join(artifacts, "admin-memories.png"), fullPage: true });

  // Delete asks for a second click, then the memory leaves the page...
  await tea.getByTestId("delete").click();
  await tea.getByText("Confirm delete").click();
  await tea.waitFor({ state: "detached" });
  await page.getByTestId("status").getByText("Deleted memory " + id).waitFor();
  // ...stays gone after reloading the list...
  await page.getByTestId("refresh").click();
  await page.getByTestId("memory").filter({ hasText: "concise answers" }).waitFor();
  assert.equal(await page.getByTestId("memory").filter({ hasText: "genmaicha" }).count(), 0);
  // ...and is gone from the store, while the other memories remain.
  assert.equal((await api("GET", "/memories/" + id)).status, 404);
  const left = await api("GET", "/users/alice/memories?state=");
  assert.ok(left.body.data.length >= 6, "other memories remain");
  assert.ok(!left.body.data.some((m) => m.id === id));

  await page.screenshot({ path: join(artifacts, "admin-after-delete.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

test("search shows the score breakdown, history the supersede chain, A/B the charts", async () => {
  const page = await context.newPage();
  await page.goto(baseURL + "/admin/");
  await page.getByTestId("token").fill(token);
  await page.getByTestId("connect").click();
  await page.getByTestId("status").getByText("Connected.").waitFor();
  await page.locator('#users button[data-user="alice"]').click();
  await page.getByTestId("memory").first().waitFor();

  await page.getByTestId("state").selectOption("");
  await page.getByTestId("refresh").click();
  const lisbon = page.getByTestId("memory").filter({ hasText: "moved to Lisbon" });
  await lisbon.getByRole("button", { name: "History" }).click();
  const hist = page.getByTestId("history");
  await hist.getByText("Alice lives in Berlin").waitFor();
  await hist.getByText("moved to Lisbon").waitFor();

  await page.locator('#tabs button[data-tab="search"]').click();
  await page.getByTestId("search-q").fill("where does Alice live now?");
  await page.getByTestId("search-go").click();
  const row = page.getByTestId("search-row").filter({ hasText: "Lisbon" });
  await row.waitFor();
  const widths = await row.locator("svg rect").evaluateAll((rs) => rs.map((r) => Number(r.getAttribute("width"))));
  assert.ok(widths.length >= 2 && widths.every((w) => w > 0), "score breakdown bar: " + widths);
  assert.match(await page.locator("#search-explain").textContent(), /weights sim 0\.6, retention 0\.3/);
  assert.equal(await page.getByTestId("search-row").filter({ hasText: "Berlin" }).count(), 0, "superseded fact is not a candidate");
  await page.screenshot({ path: join(artifacts, "admin-search.png"), fullPage: true });

  await page.locator('#tabs button[data-tab="ab"]').click();
  const charts = page.getByTestId("ab-charts");
  await charts.locator("svg").first().waitFor();
  assert.ok((await charts.locator("svg").count()) >= 5);
  assert.ok((await charts.locator("svg text").filter({ hasText: /^off$/ }).count()) >= 1);
  await page.screenshot({ path: join(artifacts, "admin-ab.png"), fullPage: true });
});

test("a wrong token is refused and shows the API's message", async () => {
  const page = await context.newPage();
  await page.goto(baseURL + "/admin/");
  await page.getByTestId("token").fill("wrong");
  await page.getByTestId("connect").click();
  await page.getByTestId("status").getByText(/401: missing or invalid admin token/).waitFor();
});
