// The official SDKs of the three APIs memproxy gives memory to, pointed at
// memproxy, which is pointed at the repository's fake upstream (started
// with --echo-system, so a reply shows what was injected, and
// --log-bodies, so the test can replay what the upstream received):
// openai (Responses), the AI SDK's default OpenAI provider, and
// @anthropic-ai/sdk (Messages). Each shows a remembered fact injected, the
// reply captured and the reply's bytes the same as a direct call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(path.join(tmpdir(), 'memproxy-apis-'));
const admin = 'node-admin-token';
const user = 'node-user';
const procs = [];
let proxy, upstream;
let fakeLog = '';

function build(name, envVar) {
  if (process.env[envVar]) return process.env[envVar];
  const out = path.join(work, name);
  execFileSync('go', ['build', '-o', out, `./cmd/${name}`], { cwd: repo, stdio: 'inherit' });
  return out;
}

function start(bin, args, pattern, env, onLog) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    procs.push(p);
    let log = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${log}`)), 60_000);
    let started = false;
    p.stderr.on('data', (d) => {
      if (onLog) onLog(String(d));
      if (started) return;
      log += d;
      const m = log.match(pattern);
      if (m) {
        started = true;
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    p.on('exit', (code) => reject(new Error(`${bin} exited with ${code}: ${log}`)));
  });
}

// until polls cond until it returns a value (the background queue works
// on its own schedule), failing after 20 s.
async function until(what, cond) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// tap is a fetch that records the raw text of every response body.
function tap() {
  const bodies = [];
  const f = async (input, init) => {
    const resp = await fetch(input, init);
    bodies.push(resp.clone().text());
    return resp;
  };
  f.last = () => bodies[bodies.length - 1];
  return f;
}

// The background strips memory sections from what it stores, so a
// captured reply that echoes one is kept without it.
const stripMemory = (s) => s.replace(/\s*<memory>[\s\S]*?<\/memory>/g, '');

const mask = (s) => s.replace(/\b(resp|msg|fc|toolu|call)_fake[0-9_]+/g, '$1_ID');

// direct replays the last body the fake received (from its log) straight
// to it and returns the masked reply.
async function direct(route, headers) {
  const lines = fakeLog.split('\n').filter((l) => l.startsWith(`POST ${route} `));
  const body = lines[lines.length - 1].slice(`POST ${route} `.length);
  const resp = await fetch(`${upstream}${route}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return mask(await resp.text());
}

// captured waits until the turn of request id is in the user's turn log.
async function captured(requestId) {
  return until(`turn ${requestId}`, async () => {
    const r = await fetch(`${proxy}/admin/v1/users/${user}/export`, { headers: { authorization: `Bearer ${admin}` } });
    const ex = await r.json();
    return (ex.turns || []).find((t) => t.request_id === requestId);
  });
}

before(async () => {
  const fakeBin = build('fakeupstream', 'FAKEUPSTREAM_BIN');
  const proxyBin = build('memproxy', 'MEMPROXY_BIN');
  const up = await start(fakeBin, ['--listen', '127.0.0.1:0', '--echo-system', '--log-bodies'], /listening on (http:\/\/\S+)\/v1/, {}, (d) => {
    fakeLog += d;
  });
  upstream = up;
  const addr = await start(
    proxyBin,
    ['serve', '--listen', '127.0.0.1:0', '--upstream', `${up}/v1`, '--db', path.join(work, 'memproxy.db')],
    /"addr":"([^"]+)"/,
    { MEMPROXY_ADMIN_TOKEN: admin },
  );
  proxy = `http://${addr}`;
  const r = await fetch(`${proxy}/admin/v1/users/${user}/memories`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: "The user's sister is named Ottilie.", tier: 'profile' }),
  });
  assert.equal(r.status, 201, await r.text());
});

after(async () => {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise((resolve) => {
          if (p.exitCode !== null) return resolve();
          p.removeAllListeners('exit');
          p.on('exit', resolve);
          p.kill('SIGTERM');
        }),
    ),
  );
  rmSync(work, { recursive: true, force: true });
});

const headers = { 'X-Memproxy-User': user };

function openai(f) {
  return new OpenAI({ baseURL: `${proxy}/v1`, apiKey: 'sk-node', maxRetries: 0, defaultHeaders: headers, fetch: f });
}

test('openai responses.create: fact injected, reply captured, bytes as direct', async () => {
  const f = tap();
  const { data, response } = await openai(f)
    .responses.create({ model: 'gpt-test', instructions: 'Be brief.', input: 'What is my sister called?' })
    .withResponse();
  assert.equal(response.headers.get('x-memproxy-recall'), 'injected');
  assert.match(data.output_text, /^You said: What is my sister called\?\n\[system\] Be brief\.\n\n<memory>/);
  assert.match(data.output_text, /Ottilie/);
  const turn = await captured(response.headers.get('x-memproxy-request-id'));
  assert.equal(turn.assistant, stripMemory(data.output_text));
  assert.equal(turn.api, 'responses');
  assert.equal(mask(await f.last()), await direct('/v1/responses', { authorization: 'Bearer sk-node' }));
});

test('openai responses.create streamed', async () => {
  const f = tap();
  const stream = await openai(f).responses.create({ model: 'gpt-test', input: 'Tell me about my sister.', stream: true });
  let text = '';
  let completed = false;
  for await (const ev of stream) {
    if (ev.type === 'response.output_text.delta') text += ev.delta;
    if (ev.type === 'response.completed') completed = true;
  }
  assert.ok(completed);
  assert.match(text, /Ottilie/);
  assert.equal(mask(await f.last()), await direct('/v1/responses', { authorization: 'Bearer sk-node' }));
});

test('openai responses function-tool round trip', async () => {
  const client = openai();
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { query: { type: 'string' } } } }];
  const first = await client.responses.create({ model: 'gpt-test', tools, input: 'Weather where my sister lives?' });
  const call = first.output.find((o) => o.type === 'function_call');
  assert.equal(call.name, 'get_weather');
  const { data, response } = await client.responses
    .create({ model: 'gpt-test', tools, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }] })
    .withResponse();
  assert.equal(data.output_text, 'The tool returned: sunny');
  assert.equal(response.headers.get('x-memproxy-recall'), 'skipped');
  const turn = await captured(response.headers.get('x-memproxy-request-id'));
  assert.equal(turn.assistant, 'The tool returned: sunny');
});

test('AI SDK default provider: generateText and streamText', async () => {
  const f = tap();
  const provider = createOpenAI({ baseURL: `${proxy}/v1`, apiKey: 'sk-node', headers, fetch: f });
  const gen = await generateText({ model: provider('gpt-test'), system: 'Be kind.', prompt: 'Who is my sister?' });
  assert.match(gen.text, /Ottilie/);
  assert.equal(gen.response.headers['x-memproxy-recall'], 'injected');
  const turn = await captured(gen.response.headers['x-memproxy-request-id']);
  assert.equal(turn.assistant, stripMemory(gen.text));
  assert.equal(mask(await f.last()), await direct('/v1/responses', { authorization: 'Bearer sk-node' }));

  const st = streamText({ model: provider('gpt-test'), prompt: 'Remind me of my sister.' });
  let text = '';
  for await (const part of st.textStream) text += part;
  assert.match(text, /Ottilie/);
  const resp = await st.response;
  const t2 = await captured(resp.headers['x-memproxy-request-id']);
  assert.equal(t2.assistant, stripMemory(text));
});

function anthropic(f) {
  return new Anthropic({ baseURL: proxy, apiKey: 'sk-ant-node', maxRetries: 0, defaultHeaders: headers, fetch: f });
}

test('anthropic messages.create: text and tool use', async () => {
  const f = tap();
  const client = anthropic(f);
  const { data, response } = await client.messages
    .create({
      model: 'claude-test',
      max_tokens: 100,
      system: [{ type: 'text', text: 'A cached manual.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'What is my sister called?' }],
    })
    .withResponse();
  assert.equal(response.headers.get('x-memproxy-recall'), 'injected');
  assert.match(data.content[0].text, /\[system\] A cached manual\.\s<memory>[\s\S]*Ottilie/);
  const turn = await captured(response.headers.get('x-memproxy-request-id'));
  assert.equal(turn.assistant, stripMemory(data.content[0].text));
  assert.equal(turn.api, 'messages');
  const ah = { 'x-api-key': 'sk-ant-node', 'anthropic-version': '2023-06-01' };
  assert.equal(mask(await f.last()), await direct('/v1/messages', ah));

  const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { query: { type: 'string' } } } }];
  const messages = [{ role: 'user', content: 'Weather where my sister lives?' }];
  const first = await client.messages.create({ model: 'claude-test', max_tokens: 100, tools, messages });
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] });
  const second = await client.messages.create({ model: 'claude-test', max_tokens: 100, tools, messages }).withResponse();
  assert.equal(second.data.content[0].text, 'The tool returned: sunny');
  assert.equal(second.response.headers.get('x-memproxy-recall'), 'skipped');
});

test('anthropic messages.stream: text and tool use', async () => {
  const f = tap();
  const client = anthropic(f);
  const stream = client.messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Tell me about my sister.' }] });
  let text = '';
  stream.on('text', (t) => (text += t));
  const msg = await stream.finalMessage();
  assert.match(text, /Ottilie/);
  assert.equal(msg.content[0].text, text);
  const ah = { 'x-api-key': 'sk-ant-node', 'anthropic-version': '2023-06-01' };
  assert.equal(mask(await f.last()), await direct('/v1/messages', ah));

  const tools = [{ name: 'lookup', input_schema: { type: 'object', properties: { query: { type: 'string' } } } }];
  const ts = client.messages.stream({ model: 'claude-test', max_tokens: 100, tools, messages: [{ role: 'user', content: 'Look up my sister.' }] });
  const tm = await ts.finalMessage();
  const use = tm.content.find((b) => b.type === 'tool_use');
  assert.deepEqual(use.input, { query: 'Look up my sister.' });
  assert.equal(tm.stop_reason, 'tool_use');
});
