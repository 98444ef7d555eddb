// Headless-browser test of the memory browser page (/admin/): Debian's
// Chromium driven by playwright-core against the real memproxy binary
// (SQLite in a temp dir) in front of the fake upstream. Memories are seeded
// through the admin import; chat requests in both A/B arms go through the
// proxy for the report. The page finds a seeded memory, deletes it and sees
// it gone (also after a reload and through the API); screenshots go to
// test-artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const artifacts = join(root, "test-artifacts");
const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const token = "browser-test-admin-token";
const day = 86400e3;

let tmp, context, baseURL;
const procs = [];

// start runs a binary and resolves with the first match of re in its
// stderr (where both servers announce their address).
async function start(bin, args, env, re) {
  const proc = spawn(bin, args, { cwd: tmp, env, stdio: ["ignore", "ignore", "pipe"] });
  procs.push(proc);
  let err = "";
  return new Promise((resolveMatch, reject) => {
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${err}`)), 60000);
    proc.stderr.on("data", (chunk) => {
      err += chunk;
      const m = err.match(re);
      if (m) {
        clearTimeout(timer);
        resolveMatch(m[1]);
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited with ${code}: ${err}`));
    });
  });
}

async function call(method, path, body, headers = {}) {
  const res = await fetch(baseURL + path, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, text, headers: res.headers };
}

const adminCall = (method, path, body) => call(method, "/admin/v1" + path, body, { Authorization: "Bearer " + token });

// waitFor polls cond (an async predicate) until it holds: the recall log is
// written off the request path.
async function waitFor(what, cond) {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await delay(50);
  }
  throw new Error("timed out waiting for " + what);
}

function mem(id, tier, text, ageDays, extra = {}) {
  const t = new Date(Date.now() - ageDays * day).toISOString();
  return {
    id, scope: { user: "alice", namespace: "default" }, tier, text, value: 0.6, confidence: 0.9, source: "extracted",
    provenance: {}, created_at: t, last_used_at: t, hits: 1, valid_from: t, ...extra,
  };
}

async function seed() {
  const moved = new Date(Date.now() - 20 * day).toISOString();
  const memories = [
    mem("a0000000000000a1", "profile", "Alice prefers concise answers with code first", 90, { no_decay: true, source: "explicit", value: 0.95, hits: 12 }),
    mem("a0000000000000a2", "semantic", "Alice's favourite tea is genmaicha", 40, { hits: 3 }),
    mem("a0000000000000a3", "semantic", "Alice lives in Berlin", 200, { key: "user.city", valid_to: moved, superseded_by: "a0000000000000a4" }),
    mem("a0000000000000a4", "semantic", "Alice moved to Lisbon in October", 20, { key: "user.city" }),
    mem("a0000000000000a5", "episodic", "On Nov 3 Alice and the team shipped the billing release after two delays", 25, { hits: 0 }),
    mem("a0000000000000a6", "event", "User asked how to parse RFC 3339 times in Go; assistant showed time.Parse", 10, { source: "event", value: 0.4, hits: 0 }),
    mem("a0000000000000a7", "event", "User said thanks for the regex help", 70, { source: "event", value: 0.1, hits: 0 }),
  ];
  const imp = await adminCall("POST", "/users/alice/import", { format: "memproxy.export.v1", user: "alice", memories, turns: [] });
  assert.equal(imp.status, 200, imp.text);
  assert.equal(imp.body.memories, memories.length);
  const bob = await adminCall("POST", "/users/bob/memories", { text: "Bob plays chess on Sundays" });
  assert.equal(bob.status, 201, bob.text);

  // Chat traffic in both arms, for the A/B report, and one thumbs-up.
  const ids = [];
  for (const [user, arm, text] of [
    ["alice", "on", "Do you remember where I live now?"],
    ["alice", "on", "What tea do I like, as I told you?"],
    ["bob", "off", "Remember my hobby?"],
  ]) {
    const r = await call("POST", "/v1/chat/completions", { model: "fake", messages: [{ role: "user", content: text }] }, {
      Authorization: "Bearer sk-browser-test", "X-Memproxy-User": user, "X-Memproxy-Memory": arm,
    });
    assert.equal(r.status, 200, r.text);
    ids.push(r.headers.get("x-memproxy-request-id"));
  }
  await waitFor("recall rows", async () => (await adminCall("GET", "/ab?since=2000-01-01T00:00:00Z")).body.arms.length === 2);
  const fb = await call("POST", "/memproxy/v1/feedback", { request_id: ids[0], score: 1 }, { Authorization: "Bearer " + token });
  assert.equal(fb.status, 200, fb.text);
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium not found at ${chromiumPath} (apt-get install -y chromium)`);
  tmp = mkdtempSync(join(tmpdir(), "memproxy-browser-"));
  mkdirSync(artifacts, { recursive: true });
  for (const cmd of ["memproxy", "fakeupstream"]) {
    execFileSync("go", ["build", "-o", join(tmp, cmd), "./cmd/" + cmd], { cwd: root, stdio: "inherit" });
  }
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MEMPROXY_")));
  const upstream = await start(join(tmp, "fakeupstream"), ["-listen", "127.0.0.1:0"], env, /listening on (http:\/\/\S+)/);
  const addr = await start(join(tmp, "memproxy"),
    ["serve", "--listen", "127.0.0.1:0", "--db", join(tmp, "memproxy.db"), "--upstream", upstream],
    { ...env, MEMPROXY_ADMIN_TOKEN: token }, /"msg":"memproxy listening".*?"addr":"([^"]+)"/);
  baseURL = "http://" + addr;
  await seed();
  context = await chromium.launchPersistentContext(join(tmp, "profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    viewport: { width: 1280, height: 900 },
  });
});

after(async () => {
  if (context) await context.close();
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill("SIGTERM");
      await once(p, "exit");
    }
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function openAlice(page) {
  await page.goto(baseURL + "/admin/");
  await page.getByTestId("token").fill(token);
  await page.getByTestId("connect").click();
  await page.getByTestId("status").getByText("Connected.").waitFor();
  await page.locator('#users button[data-user="alice"]').click();
}

test("the page finds a seeded memory, deletes it and sees it gone", async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await openAlice(page);

  const tea = page.getByTestId("memory").filter({ hasText: "favourite tea is genmaicha" });
  await tea.waitFor();
  // Memories are grouped by tier and carry a retention bar.
  assert.equal(await page.locator('[data-tier="semantic"]').getByText("genmaicha").count(), 1);
  assert.equal(await page.locator('[data-tier="profile"]').getByText("concise answers").count(), 1);
  const width = await tea.locator(".bar > span").evaluate((el) => el.style.width);
  assert.match(width, /^\d+%$/);
  const id = await tea.getAttribute("data-id");
  assert.equal(id, "a0000000000000a2");
  // The card names the memory as the injected block does (digits as g–p).
  await tea.getByText("m:aggg (a0000000000000a2)").waitFor();
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
  assert.equal((await adminCall("GET", "/memories/" + id)).status, 404);
  const left = await adminCall("GET", "/users/alice/memories?limit=500");
  assert.ok(!left.body.data.some((m) => m.id === id));
  assert.ok(left.body.data.some((m) => m.id === "a0000000000000a1"), "other memories remain");

  await page.screenshot({ path: join(artifacts, "admin-after-delete.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

test("search shows the score breakdown, history the supersede chain, A/B the charts", async () => {
  const page = await context.newPage();
  await openAlice(page);
  await page.getByTestId("memory").first().waitFor();

  await page.getByTestId("state").selectOption("");
  await page.getByTestId("refresh").click();
  const lisbon = page.getByTestId("memory").filter({ hasText: "moved to Lisbon" });
  await lisbon.getByRole("button", { name: "History" }).click();
  const hist = page.getByTestId("history");
  await hist.getByText("Alice lives in Berlin").waitFor();
  await hist.getByText("moved to Lisbon").waitFor();

  await page.locator('#tabs button[data-tab="search"]').click();
  await page.getByTestId("search-q").fill("where does Alice live now? Lisbon?");
  await page.getByTestId("search-go").click();
  const row = page.getByTestId("search-row").filter({ hasText: "moved to Lisbon" });
  await row.waitFor();
  const widths = await row.locator("svg rect").evaluateAll((rs) => rs.map((r) => Number(r.getAttribute("width"))));
  assert.ok(widths.length >= 2 && widths.every((w) => w > 0), "score breakdown bar: " + widths);
  assert.match(await page.locator("#search-explain").textContent(), /weights sim [\d.]+, retention [\d.]+/);
  assert.equal(await page.getByTestId("search-row").filter({ hasText: "lives in Berlin" }).count(), 0, "superseded fact is not a candidate");
  await page.screenshot({ path: join(artifacts, "admin-search.png"), fullPage: true });

  await page.locator('#tabs button[data-tab="ab"]').click();
  const charts = page.getByTestId("ab-charts");
  await charts.locator("svg").first().waitFor();
  assert.ok((await charts.locator("svg").count()) >= 5);
  for (const arm of ["on", "off"]) {
    assert.ok((await charts.locator("svg text").filter({ hasText: new RegExp(`^${arm}$`) }).count()) >= 1, arm + " arm charted");
  }
  await page.screenshot({ path: join(artifacts, "admin-ab.png"), fullPage: true });
});

test("a wrong token is refused and shows the API's message", async () => {
  const page = await context.newPage();
  await page.goto(baseURL + "/admin/");
  await page.getByTestId("token").fill("wrong");
  await page.getByTestId("connect").click();
  await page.getByTestId("status").getByText(/401: missing or invalid admin token/).waitFor();
});
