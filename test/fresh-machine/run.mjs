// Runs inside a network namespace with nothing listening (see fresh-machine.integration.test.ts):
// the README's `npm start` in a copy of the repository, then what a newcomer does next.
// Prints one JSON line of findings on stdout; everything else goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const port = 18080;
const env = { ...process.env, TALLY_HTTP_PORT: String(port), TALLY_LOG_LEVEL: 'info' };
delete env.DATABASE_URL;
delete env.NATS_URL;
const found = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const started = Date.now();
const tally = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
let stdout = '';
let stderr = '';
tally.stdout.on('data', (c) => (stdout += c));
tally.stderr.on('data', (c) => (stderr += c));
const exited = new Promise((r) => tally.once('exit', (code, signal) => r({ code, signal })));

async function ready() {
  while (Date.now() - started < 120_000) {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).then((x) => x.status, () => 0);
    if (r === 200 && stdout.includes('SDK key')) return true;
    if (tally.exitCode !== null) return false;
    await sleep(250);
  }
  return false;
}

found.ready = await ready();
found.startSeconds = (Date.now() - started) / 1000;
if (found.ready) {
  // stdout: the running line, then the keys, last; nothing of Postgres's own output.
  const lines = stdout.trim().split('\n');
  found.stdoutFirst = lines.find((l) => !l.startsWith('>') && l.trim() !== '');
  found.keysLast = /SDK key/.test(lines.at(-2) ?? '') || /Keep these keys/.test(lines.at(-1) ?? '');
  found.postgresOnStdout = /database system|initdb|fixing permissions/i.test(stdout);

  // `tally init --json` while `npm start` runs: JSON only, the same organization.
  const init = spawnSync('npx', ['tally', 'init', '--json'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  found.initStatus = init.status;
  found.initStderr = init.stderr.slice(-500);
  let keys;
  try {
    keys = JSON.parse(init.stdout);
    found.initJson = true;
  } catch {
    found.initJson = false;
    found.initStdout = init.stdout.slice(0, 500);
  }
  const dev = keys?.environments?.development ?? {};
  found.keys = typeof dev.sdk_key === 'string' && typeof dev.admin_api_key === 'string';
  if (found.keys) {
    const call = (method, p, key, body) =>
      fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const type = await call('POST', '/api/v1/agent_type/create', dev.admin_api_key, { name: 'Assistant', description: 'first agent type' });
    const agent = await call('POST', '/api/v1/agent_instance/create', dev.admin_api_key, { name: 'fresh-agent', agent_type_id: type.body.id });
    const send = await call('POST', '/v1/actions', dev.sdk_key, { agent_key: agent.body.id, action_type: 'first_call', id: 'fresh-1' });
    found.sendStatus = send.status;
    if (send.status !== 200) found.sendBody = { agent, send };
    const batch = await call('POST', '/v1/actions', dev.sdk_key, [2, 3, 4].map((n) => ({ agent_key: agent.body.id, action_type: 'batched_call', id: `fresh-${n}` })));
    found.batchAccepted = batch.body.accepted;
    // The console: served ready by the api role, no build step.
    const page = await fetch(`http://127.0.0.1:${port}/console`);
    const script = await fetch(`http://127.0.0.1:${port}/console/app.js`);
    found.console = { page: page.status, csp: (page.headers.get('content-security-policy') ?? '').includes("script-src 'self'"), script: script.status, scriptBytes: (await script.arrayBuffer()).byteLength > 10_000 };
    found.node = /"msg":"tally started".*?"node":"(v[^"]+)"/.exec(stderr)?.[1];
    found.httpServer = /"msg":"tally started".*?"http_server":"([^"]+)"/.exec(stderr)?.[1];
    // Read back: the sink stores it in chDB within a moment.
    const day = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 100; i++) {
      const u = await call('GET', `/v1/usage?start_date=${day}&end_date=${next}&agent_id=${agent.body.id}`, dev.sdk_key);
      found.usage = u.body.usage;
      if (u.body.usage?.[0]?.actions === '4') break;
      await sleep(200);
    }
  }
}

// As root with the clone in a closed (0700) directory, the cluster is elsewhere, linked from .data/postgres.
const link = path.join(dir, '.data/postgres');
found.postgresCluster = lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(link) : undefined;
found.clusterLogged = /the embedded Postgres cluster goes to \/var\/lib\/tally\/postgres-\w+, owned by postgres/.test(stderr);

// SIGTERM stops every child: no postgres or nats-server of this directory is left.
tally.kill('SIGTERM');
const end = await Promise.race([exited, sleep(30_000).then(() => ({ code: 'timeout' }))]);
found.exit = end;
found.leftovers = children().map((c) => c.cmd);

/** Processes still running on this copy's data directory (the embedded Postgres, the started nats-server). */
function children() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(path.join(dir, '.data')) || (found.postgresCluster && cmd.includes(found.postgresCluster))) out.push({ pid: Number(pid), cmd: cmd.slice(0, 200) });
    } catch {
      /* gone */
    }
  }
  return out;
}
if (!found.ready || (found.postgresCluster && !found.clusterLogged)) found.stderrTail = stderr.slice(-3000);
process.stdout.write(JSON.stringify(found) + '\n');
// Whatever is left is killed, so a failed run never leaves servers behind.
// By process id: a pattern would also match other tests' servers (and the machine's NATS).
for (const c of children()) {
  try {
    process.kill(c.pid, 'SIGKILL');
  } catch {}
}
process.exit(0);
