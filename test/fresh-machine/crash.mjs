// Runs inside a network namespace with nothing listening (see crash.integration.test.ts):
// `npm start` with its own nats-server and embedded Postgres, events under load, the
// node process killed with SIGKILL (what the OOM killer does), a second `npm start` on
// the same data directory, then SIGTERM to its process group while events arrive.
// Prints one JSON line of findings on stdout; everything else goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [repo, dataDir] = process.argv.slice(2);
const port = 18080;
const env = { ...process.env, TALLY_HTTP_PORT: String(port), TALLY_LOG_LEVEL: 'info', TALLY_DATA_DIR: dataDir, TALLY_COST_ROLLUP_INTERVAL_MS: '300', TALLY_SINK_ACK_WAIT_MS: '3000' };
delete env.DATABASE_URL;
delete env.NATS_URL;
const found = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const base = `http://127.0.0.1:${port}`;

/** `npm start` in a process group of its own (as a shell runs it). */
function start() {
  const child = spawn('npm', ['start'], { cwd: repo, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { child, stdout: '', stderr: '', exited: new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))) };
  child.stdout.on('data', (c) => (run.stdout += c));
  child.stderr.on('data', (c) => (run.stderr += c));
  return run;
}

async function ready(run) {
  const t0 = Date.now();
  while (Date.now() - t0 < 120_000) {
    if ((await fetch(`${base}/readyz`).then((x) => x.status, () => 0)) === 200) return true;
    if (run.child.exitCode !== null) return false;
    await sleep(200);
  }
  return false;
}

/** The Tally node process npm started (npm's child). */
function nodeOf(npmPid) {
  for (const pid of pids()) {
    const stat = read(`/proc/${pid}/stat`);
    if (stat && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === npmPid) return pid;
  }
  return undefined;
}
const pids = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);
function read(f) {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return undefined;
  }
}

/** Processes running on the data directory: the self-started nats-server, the embedded Postgres. */
function servers() {
  const out = [];
  for (const pid of pids()) {
    const cmd = read(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ');
    if (cmd?.includes(dataDir) && !cmd.includes('crash.mjs')) out.push({ pid, cmd: cmd.slice(0, 160) });
  }
  return out;
}

/** The sink's insert-file directories holding files of process `pid`. */
function insertDirsOf(pid) {
  const out = [];
  for (const b of ['/dev/shm', '/tmp']) {
    let names = [];
    try {
      names = readdirSync(b).filter((n) => n.startsWith('tally-sink-'));
    } catch {}
    for (const n of names) {
      let files = [];
      try {
        files = readdirSync(path.join(b, n));
      } catch {}
      if (n.startsWith(`tally-sink-${pid}-`) || files.some((f) => f.startsWith(`${pid}-`))) out.push(path.join(b, n));
    }
  }
  return out;
}

const call = (method, p, key, body) =>
  fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => ({})) }));

/**
 * Sends batches of 50 events until `until()`: the events acknowledged (200), and those of
 * requests without an answer (the process died or stopped meanwhile: stored or not).
 */
async function load(sdk, agent, prefix, until) {
  let acked = 0;
  let unanswered = 0;
  for (let n = 0; !until(); n++) {
    const r = await call('POST', '/v1/actions', sdk, Array.from({ length: 50 }, (_, i) => ({ agent_key: agent, action_type: 'call', id: `${prefix}-${n}-${i}` }))).catch(() => ({ status: 0 }));
    if (r.status === 200) acked += r.body.accepted;
    if (r.status === 0) unanswered += 50;
  }
  return { acked, unanswered };
}

// 1. The first run, events under load, then SIGKILL of the node process alone.
const a = start();
found.readyA = await ready(a);
if (found.readyA) {
  const init = spawnSync('node', [path.join(repo, 'bin/tally.js'), 'init', '--json'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
  const dev = JSON.parse(init.stdout).environments.development;
  const type = await call('POST', '/api/v1/agent_type/create', dev.admin_api_key, { name: 'Crash', description: 'x' });
  const agent = (await call('POST', '/api/v1/agent_instance/create', dev.admin_api_key, { name: 'crash-agent', agent_type_id: type.body.id })).body.id;
  const nodeA = nodeOf(a.child.pid);
  let stop = false;
  const sending = load(dev.sdk_key, agent, 'a', () => stop);
  await sleep(1500);
  found.insertDirsA = insertDirsOf(nodeA).length;
  process.kill(nodeA, 'SIGKILL');
  stop = true;
  let { acked, unanswered } = await sending;
  await a.exited;
  found.serversAfterKill = servers().map((s) => s.cmd.split(' ')[0].split('/').at(-1));

  // 2. The second run on the same data directory: what the dead one left is adopted or removed.
  const b = start();
  found.readyB = await ready(b);
  const nodeB = nodeOf(b.child.pid);
  found.insertDirsALeft = insertDirsOf(nodeA);
  found.natsServers = servers().filter((s) => s.cmd.includes('nats-server')).length;
  stop = false;
  const sendingB = load(dev.sdk_key, agent, 'b', () => stop);
  await sleep(1500);
  stop = true;
  const more = await sendingB;
  acked += more.acked;
  unanswered += more.unanswered;
  // Everything acknowledged, counted once (the events of a request the kill cut short may be there too).
  const day = new Date().toISOString().slice(0, 10);
  const next = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < 150; i++) {
    const u = await call('GET', `/v1/usage?start_date=${day}&end_date=${next}&agent_id=${agent}`, dev.sdk_key);
    found.usage = Number(u.body.usage?.[0]?.actions ?? 0);
    if (found.usage >= acked) break;
    await sleep(200);
  }
  found.acked = acked;
  found.unanswered = unanswered;
  await sleep(1500); // a few cost-rollup steps

  // 3. SIGTERM to the process group (as a shell's Ctrl-C or `kill -- -PGID` does) while events arrive.
  stop = false;
  const sendingC = load(dev.sdk_key, agent, 'c', () => stop);
  await sleep(1000);
  process.kill(-b.child.pid, 'SIGTERM');
  found.exitB = await Promise.race([b.exited, sleep(60_000).then(() => ({ code: 'timeout' }))]);
  stop = true;
  await sendingC;
  found.stoppingLogged = /"msg":"stopping"/.test(b.stderr);
  found.stoppedLogged = /"msg":"stopped"/.test(b.stderr);
  found.insertDirsBLeft = insertDirsOf(nodeB);
  found.adoptedNats = /"msg":"adopting the nats-server/.test(b.stderr);
  found.adoptedPostgres = /"msg":"adopting the embedded Postgres/.test(b.stderr);
  found.removedInsertFiles = /"msg":"removed insert files of processes that ended/.test(b.stderr);
  found.wentBack = /went back/.test(b.stderr);
  found.logB = b.stderr
    .split('\n')
    .filter((l) => /adopt|left running|insert files|went back|"level":"(error|warn)"/.test(l))
    .map((l) => l.slice(0, 400));
}
found.leftovers = servers().map((s) => s.cmd);
if (!found.readyA || !found.readyB) found.stderrTail = (a.stderr + '\n----\n').slice(-3000);
process.stdout.write(JSON.stringify(found) + '\n');
// Whatever is left is killed by its process id, so a failed run leaves no servers behind.
for (const s of servers()) {
  try {
    process.kill(s.pid, 'SIGKILL');
  } catch {}
}
process.exit(0);
