// memproxy memory browser: a plain script over the admin API. Every piece
// of stored text is inserted as a text node, never as HTML: memories hold
// whatever users typed.
"use strict";

const TIERS = ["profile", "semantic", "episodic", "event"];
const state = { token: sessionStorage.getItem("memproxy.token") || "", user: "", usersNext: "", memNext: "", namespaces: {} };

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const kid of kids.flat()) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}

const $ = (id) => document.getElementById(id);

function setStatus(msg, isError) {
  const el = $("status");
  el.textContent = msg;
  el.classList.toggle("error", !!isError);
}

async function api(method, path, body) {
  const opts = { method, headers: { Authorization: "Bearer " + state.token } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch("/admin/v1" + path, opts);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const msg = (data.error && data.error.message) || res.statusText;
    throw new Error(res.status + ": " + msg);
  }
  return data;
}

const enc = encodeURIComponent;
// shortId is a memory's short name on this page ("m:ofic"): the id's first
// four letters and digits with 0–9 as g–p, so it reads back to the hex prefix.
const shortId = (id) =>
  (id.match(/[0-9A-Za-z]/g) || []).slice(0, 4).map((c) => (c >= "0" && c <= "9" ? String.fromCharCode(103 + +c) : c)).join("");
const fmtDate = (t) => (t ? new Date(t).toISOString().slice(0, 16).replace("T", " ") : "–");
const pct = (x) => Math.round(Math.max(0, Math.min(1, x)) * 100);
const num = (x, d = 2) => (typeof x === "number" ? x.toFixed(d) : "–");

// ---- users

async function loadUsers(more) {
  try {
    const q = "?limit=100" + (more && state.usersNext ? "&cursor=" + enc(state.usersNext) : "");
    const page = await api("GET", "/users" + q);
    const ul = $("users");
    if (!more) ul.replaceChildren();
    for (const u of page.data) {
      state.namespaces[u.user] = u.namespaces || [];
      ul.append(h("li", {}, h("button", { "data-user": u.user, onclick: () => openUser(u.user) },
        u.user, " ", h("small", {}, u.memories + " · " + (u.namespaces || []).join(", ")))));
    }
    if (!page.data.length && !more) ul.append(h("li", { class: "empty" }, "No users yet."));
    state.usersNext = page.next || "";
    $("more-users").hidden = !state.usersNext;
    setStatus("Connected.");
  } catch (e) {
    setStatus(e.message, true);
  }
}

function openUser(user) {
  state.user = user;
  $("user-input").value = user;
  for (const b of document.querySelectorAll("#users button")) b.classList.toggle("active", b.dataset.user === user);
  const nss = state.namespaces[user] || [];
  $("ns-list").replaceChildren(...nss.map((n) => h("option", { value: n })));
  if (nss.length && !nss.includes($("ns").value)) $("ns").value = nss[0];
  showTab("memories");
  loadMemories(false);
}

// ---- memories

function memParams() {
  const p = new URLSearchParams({ namespace: $("ns").value || "default", limit: "100" });
  if ($("state").value) p.set("state", $("state").value);
  if ($("mem-q").value) p.set("q", $("mem-q").value);
  return p;
}

async function loadMemories(more) {
  if (!state.user) return;
  const p = memParams();
  if (more && state.memNext) p.set("cursor", state.memNext);
  $("history").hidden = true;
  try {
    const page = await api("GET", "/users/" + enc(state.user) + "/memories?" + p);
    const box = $("memories");
    if (!more) {
      box.replaceChildren();
      for (const t of TIERS) {
        box.append(h("section", { id: "tier-" + t, "data-tier": t },
          h("h3", { class: "tier" }, t, " ", h("small", {}, "")), h("div", { class: "list" })));
      }
    }
    for (const m of page.data) {
      const sec = $("tier-" + m.tier);
      if (sec) sec.querySelector(".list").append(memoryCard(m));
    }
    for (const t of TIERS) {
      const sec = $("tier-" + t);
      const n = sec.querySelectorAll(".mem").length;
      sec.querySelector("small").textContent = n ? "(" + n + ")" : "(none)";
    }
    state.memNext = page.next || "";
    $("more-memories").hidden = !state.memNext;
    $("mem-title").textContent = "Memories of " + state.user;
  } catch (e) {
    setStatus(e.message, true);
  }
}

function retentionBar(r) {
  const fill = h("span", {});
  fill.style.width = pct(r) + "%";
  return h("div", { class: "bar" + (r < 0.3 ? " low" : ""), title: "retention " + num(r) }, fill);
}

function memoryCard(m) {
  const del = h("button", { class: "danger", "data-testid": "delete" }, "Delete");
  del.addEventListener("click", async () => {
    if (!del.classList.contains("confirm")) {
      del.classList.add("confirm");
      del.textContent = "Confirm delete";
      return;
    }
    try {
      await api("DELETE", "/memories/" + enc(m.id) + "?user=" + enc(m.scope.user) + "&namespace=" + enc(m.scope.namespace));
      card.remove();
      setStatus("Deleted memory " + m.id + ".");
    } catch (e) {
      setStatus(e.message, true);
    }
  });
  const meta = [
    "m:" + shortId(m.id) + " (" + m.id + ")", m.source, "created " + fmtDate(m.created_at), "used " + fmtDate(m.last_used_at),
    "hits " + m.hits, "value " + num(m.value), "retention " + num(m.retention),
  ];
  if (m.key) meta.push("key " + m.key);
  if (m.api) meta.push("via " + m.api);
  if (m.state !== "live") meta.push(m.state);
  if (m.superseded_by) meta.push("superseded by " + m.superseded_by);
  if (m.expires_at) meta.push("expires " + fmtDate(m.expires_at));
  const card = h("div", { class: "mem" + (m.state === "live" ? "" : " dead"), "data-id": m.id, "data-testid": "memory" },
    h("div", { class: "text" }, m.text),
    h("div", { class: "meta" }, meta.join(" · ")),
    retentionBar(m.retention),
    h("div", { class: "actions" }, h("button", { onclick: () => showHistory(m) }, "History"), del));
  return card;
}

async function showHistory(m) {
  const box = $("history");
  try {
    const res = await api("GET", "/memories/" + enc(m.id) + "/history?user=" + enc(m.scope.user) + "&namespace=" + enc(m.scope.namespace));
    box.replaceChildren(h("h3", {}, "Supersede history" + (m.key ? " of " + m.key : "")));
    const ol = h("ol", {});
    for (const x of res.data) {
      ol.append(h("li", {}, h("span", { class: x.id === m.id ? "current" : "" }, x.text), " ",
        h("small", { class: "note" }, fmtDate(x.valid_from) + " → " + (x.valid_to ? fmtDate(x.valid_to) : "now") + " · " + x.state + " · m:" + shortId(x.id))));
    }
    box.append(ol, h("button", { onclick: () => (box.hidden = true) }, "Close"));
    box.hidden = false;
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ---- search with score breakdown

async function runSearch() {
  const q = $("search-q").value.trim();
  if (!state.user || !q) return;
  try {
    const p = new URLSearchParams({ q, namespace: $("ns").value || "default" });
    const res = await api("GET", "/users/" + enc(state.user) + "/search?" + p);
    const w = res.explain.weights;
    $("search-explain").textContent = res.explain.formula + " · weights sim " + w.similarity + ", retention " + w.recency +
      ", frequency " + w.frequency + ", value " + w.value + " · min_score " + res.explain.min_score + " · top_k " + res.explain.top_k;
    const tb = h("tbody", {});
    for (const c of res.data) {
      tb.append(h("tr", { class: c.injected ? "selected" : "", "data-testid": "search-row" },
        h("td", { class: "num" }, c.rank), h("td", {}, c.text, h("div", { class: "note" }, c.tier + " · m:" + shortId(c.id))),
        h("td", { class: "num" }, num(c.score, 3)), h("td", {}, scoreBars(c, w)),
        h("td", { class: "num" }, num(c.sim)), h("td", { class: "num" }, num(c.retention)),
        h("td", { class: "num" }, num(c.freq)), h("td", { class: "num" }, num(c.value)),
        h("td", {}, c.injected ? "selected" : c.filtered)));
    }
    const head = h("tr", {}, ["#", "memory", "score", "breakdown", "sim", "retention", "freq", "value", "outcome"].map((x) => h("th", {}, x)));
    $("search-results").replaceChildren(res.data.length ? h("table", {}, h("thead", {}, head), tb) : h("p", { class: "empty" }, "No candidates."));
  } catch (e) {
    setStatus(e.message, true);
  }
}

// scoreBars draws the weighted terms of a score as one stacked bar.
function scoreBars(c, w) {
  const parts = [[w.similarity * c.sim, "#2f6fdf", "sim"], [w.recency * c.retention, "#2e8b57", "retention"],
    [w.frequency * c.freq, "#d98c1f", "freq"], [w.value * c.value, "#8e44ad", "value"]];
  const total = w.similarity + w.recency + w.frequency + w.value || 1;
  const svg = s("svg", { width: 160, height: 12, viewBox: "0 0 160 12", role: "img" });
  let x = 0;
  for (const [v, color, name] of parts) {
    const width = (160 * v) / total;
    if (width <= 0) continue;
    svg.append(s("rect", { x, y: 0, width, height: 12, fill: color }, s("title", {}, name + " " + num(v, 3))));
    x += width;
  }
  return svg;
}

// ---- A/B report charts (inline SVG)

// barChart draws one bar per arm; value may return null (no data), drawn
// as an empty bar labelled "–".
function barChart(title, arms, value, fmt) {
  const W = 260, H = 150, pad = 28, max = Math.max(...arms.map((a) => value(a) ?? 0), 1e-9);
  const bw = Math.min(60, (W - pad * 2) / Math.max(arms.length, 1) - 10);
  const svg = s("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  svg.append(s("line", { x1: pad, y1: H - pad, x2: W - 8, y2: H - pad, stroke: "#999" }));
  arms.forEach((a, i) => {
    const raw = value(a), v = raw ?? 0, bh = ((H - pad * 2) * v) / max, x = pad + 10 + i * (bw + 10);
    svg.append(s("rect", { x, y: H - pad - bh, width: bw, height: bh, fill: a.arm === "off" ? "#9aa5b1" : "#2f6fdf" }));
    svg.append(s("text", { x: x + bw / 2, y: H - pad - bh - 4, "text-anchor": "middle", "font-size": 11 }, raw === null ? "–" : fmt(v)));
    svg.append(s("text", { x: x + bw / 2, y: H - pad + 14, "text-anchor": "middle", "font-size": 11 }, a.arm || "(none)"));
  });
  return h("div", { class: "chart" }, h("h4", {}, title), svg);
}

async function loadAB() {
  try {
    const d = $("ab-since").value;
    const res = await api("GET", "/ab" + (d ? "?since=" + enc(d + "T00:00:00Z") : ""));
    const arms = res.arms;
    const box = $("ab-charts");
    if (!arms.length) {
      box.replaceChildren(h("p", { class: "empty" }, "No requests since " + fmtDate(res.since) + "."));
      return;
    }
    box.replaceChildren(h("div", { class: "charts" },
      barChart("Requests", arms, (a) => a.requests, (v) => String(v)),
      barChart("Recall rate", arms, (a) => a.recall_rate, (v) => pct(v) + "%"),
      barChart("Injected tokens / request", arms, (a) => a.injected_tokens_per_request, (v) => num(v, 1)),
      barChart("Added latency p50 (ms)", arms, (a) => a.overhead_ms_p50, (v) => num(v, 2)),
      barChart("Added latency p95 (ms)", arms, (a) => a.overhead_ms_p95, (v) => num(v, 2)),
      barChart("Feedback score (mean, −1 to 1)", arms, (a) => (a.feedback_mean === null ? null : a.feedback_mean + 1), (v) => num(v - 1, 2))));
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ---- audit

async function loadAudit() {
  try {
    const res = await api("GET", "/audit?limit=200" + (state.user ? "&user=" + enc(state.user) : ""));
    const tb = h("tbody", {});
    for (const e of res.data) {
      tb.append(h("tr", {}, h("td", { class: "num" }, fmtDate(e.time)), h("td", {}, e.actor), h("td", {}, e.action),
        h("td", {}, e.scope.user + "/" + e.scope.namespace), h("td", {}, e.memory_id || ""), h("td", {}, h("code", {}, e.detail || e.after || e.before || ""))));
    }
    const head = h("tr", {}, ["time", "actor", "action", "scope", "memory", "detail"].map((x) => h("th", {}, x)));
    $("audit").replaceChildren(res.data.length ? h("table", {}, h("thead", {}, head), tb) : h("p", { class: "empty" }, "No audit entries."));
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ---- wiring

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== "tab-" + name;
  if (name === "ab") loadAB();
  if (name === "audit") loadAudit();
}

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = state.token;
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("token").value.trim();
    sessionStorage.setItem("memproxy.token", state.token);
    loadUsers(false);
  });
  $("pick-user").addEventListener("submit", (e) => {
    e.preventDefault();
    const u = $("user-input").value.trim();
    if (u) openUser(u);
  });
  $("more-users").addEventListener("click", () => loadUsers(true));
  $("more-memories").addEventListener("click", () => loadMemories(true));
  $("mem-filter").addEventListener("submit", (e) => {
    e.preventDefault();
    loadMemories(false);
  });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSearch();
  });
  $("ab-form").addEventListener("submit", (e) => {
    e.preventDefault();
    loadAB();
  });
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  if (state.token) loadUsers(false);
  else setStatus("Enter the admin token.");
});
