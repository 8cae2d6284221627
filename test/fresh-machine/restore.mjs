// Runs inside a network namespace with nothing listening (see restore.integration.test.ts):
// the README's backup and restore of the one-process default. `npm start` in a clone,
// events metered, Tally stopped, the data directory archived (README, "Backup and
// restore"), then the archive unpacked into another clone (a fresh machine) and started
// there. Prints one JSON line of findings on stdout; everything else goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [first, second, archive] = process.argv.slice(2);
const port = 18080;
const env = { ...process.env, TALLY_HTTP_PORT: String(port), TALLY_LOG_LEVEL: 'info' };
delete env.DATABASE_URL;
delete env.NATS_URL;
delete env.TALLY_DATA_DIR;
const found = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const base = `http://127.0.0.1:${port}`;
const call = (method, p, key, body) =>
  fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => ({})) }));
const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

/** `npm start` in `dir`, ready; its stop (SIGTERM to its process group) resolves with its exit. */
async function start(dir) {
  const child = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (run.stdout += c));
  child.stderr.on('data', (c) => (run.stderr += c));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const t0 = Date.now();
  run.ready = false;
  while (Date.now() - t0 < 120_000 && child.exitCode === null) {
    if ((await fetch(`${base}/readyz`).then((x) => x.status, () => 0)) === 200) {
      run.ready = true;
      break;
    }
    await sleep(200);
  }
  run.stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
    return Promise.race([exited, sleep(60_000).then(() => ({ code: 'timeout' }))]);
  };
  return run;
}

const keysOf = (dir) => JSON.parse(spawnSync('npx', ['tally', 'init', '--json'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 }).stdout || '{}').environments?.development;

async function usageOf(sdk, agent, want) {
  let actions;
  for (let i = 0; i < 100; i++) {
    const u = await call('GET', `/v1/usage?start_date=${day}&end_date=${next}&agent_id=${agent}`, sdk);
    actions = u.body.usage?.[0]?.actions;
    if (actions === want) break;
    await sleep(200);
  }
  return actions;
}

/** Processes running on a clone's data directory (or the cluster it links to). */
function servers(dirs) {
  const out = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (dirs.some((d) => d && cmd.includes(d)) && !cmd.includes('restore.mjs')) out.push({ pid: Number(pid), cmd: cmd.slice(0, 200) });
    } catch {}
  }
  return out;
}
const linked = (dir) => spawnSync('readlink', [path.join(dir, '.data/postgres')], { encoding: 'utf8' }).stdout.trim() || undefined;

// 1. The first machine: keys, an agent, 20 events; then stopped.
const a = await start(first);
found.readyA = a.ready;
if (a.ready) {
  const keys = keysOf(first);
  found.keysA = typeof keys?.admin_api_key === 'string';
  const type = await call('POST', '/api/v1/agent_type/create', keys.admin_api_key, { name: 'Backed up', description: 'x' });
  const agent = (await call('POST', '/api/v1/agent_instance/create', keys.admin_api_key, { name: 'backup-agent', agent_type_id: type.body.id })).body.id;
  const sent = await call('POST', '/v1/actions', keys.sdk_key, Array.from({ length: 20 }, (_, i) => ({ agent_key: agent, action_type: 'call', id: `b-${i}` })));
  found.acceptedA = sent.body.accepted;
  found.usageA = await usageOf(keys.sdk_key, agent, '20');
  // A backup while Tally runs is refused (its files could be half-written).
  const early = spawnSync('npx', ['tally', 'backup', archive], { cwd: first, env, encoding: 'utf8', timeout: 60_000 });
  found.backupWhileRunning = { status: early.status, stderr: early.stderr.slice(0, 300) };
  found.exitA = await a.stop();
  found.clusterA = linked(first);

  // 2. The backup, as the README says, Tally stopped.
  const saved = spawnSync('npx', ['tally', 'backup', archive], { cwd: first, env, encoding: 'utf8', timeout: 120_000 });
  found.backup = saved.status === 0 ? 'ok' : saved.stderr.slice(-1000);

  // 3. Another machine: a clone with nothing of the first, the archive restored in it, `npm start`.
  const restored = spawnSync('npx', ['tally', 'restore', archive], { cwd: second, env, encoding: 'utf8', timeout: 120_000 });
  found.restore = restored.status === 0 ? 'ok' : restored.stderr.slice(-1000);
  const b = await start(second);
  found.readyB = b.ready;
  if (b.ready) {
    const restored = keysOf(second);
    found.sameAdminKey = restored?.admin_api_key === keys.admin_api_key;
    found.sameSdkKey = restored?.sdk_key === keys.sdk_key;
    found.usageB = await usageOf(keys.sdk_key, agent, '20');
    const more = await call('POST', '/v1/actions', keys.sdk_key, [{ agent_key: agent, action_type: 'call', id: 'after-restore' }, { agent_key: agent, action_type: 'call', id: 'b-0' }]);
    found.acceptedB = more.body.accepted;
    found.usageAfter = await usageOf(keys.sdk_key, agent, '21');
    found.adminWorks = (await call('GET', '/api/v1/agent_instance/all', keys.admin_api_key)).status;
  }
  found.exitB = await b.stop();
  found.clusterB = linked(second);
  found.logB = b.stderr
    .split('\n')
    .filter((l) => /moved to|goes to|adopt|went back|"level":"(error|warn)"/.test(l))
    .map((l) => l.slice(0, 300));
  if (!b.ready) found.stderrB = b.stderr.slice(-3000);
}
if (!a.ready) found.stderrA = a.stderr.slice(-3000);
const dirs = [first, second, found.clusterA, found.clusterB];
found.leftovers = servers(dirs).map((s) => s.cmd);
process.stdout.write(JSON.stringify(found) + '\n');
for (const s of servers(dirs)) {
  try {
    process.kill(s.pid, 'SIGKILL');
  } catch {}
}
process.exit(0);
