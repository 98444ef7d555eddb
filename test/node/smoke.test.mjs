// Smoke test: the official openai npm SDK pointed at memproxy, which is
// pointed at the repository's fake upstream. Both binaries are built from
// the repository (or taken from MEMPROXY_BIN / FAKEUPSTREAM_BIN).
//
//   cd test/node && npm ci && npm test
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(path.join(tmpdir(), 'memproxy-node-'));
const procs = [];
let client;

function build(name, envVar) {
  if (process.env[envVar]) return process.env[envVar];
  const out = path.join(work, name);
  execFileSync('go', ['build', '-o', out, `./cmd/${name}`], { cwd: repo, stdio: 'inherit' });
  return out;
}

// start runs a binary and resolves with the address it logs.
function start(bin, args, pattern) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
    procs.push(p);
    let log = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${log}`)), 60_000);
    p.stderr.on('data', (d) => {
      log += d;
      const m = log.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    p.on('exit', (code) => reject(new Error(`${bin} exited with ${code}: ${log}`)));
  });
}

before(async () => {
  const fakeBin = build('fakeupstream', 'FAKEUPSTREAM_BIN');
  const proxyBin = build('memproxy', 'MEMPROXY_BIN');
  const upstream = await start(fakeBin, ['--listen', '127.0.0.1:0'], /listening on (http:\/\/\S+)/);
  const addr = await start(
    proxyBin,
    ['serve', '--listen', '127.0.0.1:0', '--upstream', upstream, '--db', path.join(work, 'memproxy.db')],
    /"addr":"([^"]+)"/,
  );
  client = new OpenAI({ baseURL: `http://${addr}/v1`, apiKey: 'sk-node-smoke', maxRetries: 0 });
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

test('chat completion through memproxy', async () => {
  const { data, response } = await client.chat.completions
    .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hello from node' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'You said: hello from node');
  assert.equal(data.choices[0].finish_reason, 'stop');
  assert.ok(response.headers.get('x-memproxy-request-id'));
  assert.equal(response.headers.get('x-memproxy-arm'), 'on');
});

test('streamed chat completion arrives in pieces, in order', async () => {
  const stream = await client.chat.completions.create({
    model: 'gpt-test',
    stream: true,
    messages: [{ role: 'user', content: 'count one two three' }],
  });
  const pieces = [];
  for await (const chunk of stream) {
    const c = chunk.choices[0]?.delta?.content;
    if (c) pieces.push(c);
  }
  assert.ok(pieces.length > 3, `only ${pieces.length} pieces`);
  assert.equal(pieces.join(''), 'You said: count one two three');
});

test('other /v1 routes pass through', async () => {
  const models = await client.models.list();
  assert.ok(models.data.some((m) => m.id === 'fake-model'));
  const emb = await client.embeddings.create({ model: 'fake-embedding', input: ['a', 'b'] });
  assert.equal(emb.data.length, 2);
  assert.equal(emb.data[0].embedding.length, 8);
});

test('upstream errors surface as SDK errors', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-test', messages: 'not a list' }),
    (err) => err.status === 400 && /messages/.test(err.message),
  );
});
