import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { decodeBatch, encodeBatch, WireFormatError, type WireEvent } from '../../shared/events/wire.ts';
import { decodeAnyBatch, encodeNativeBatch } from '../../shared/events/native-batch.ts';
import { tsvInserter } from './tsv-insert.ts';
import { ACTION_COLUMNS, ACTION_TABLE, OUTCOME_COLUMNS, OUTCOME_TABLE } from '../../shared/events/tables.ts';
import { rowsFormatFor } from './encoders.ts';
import { tsvEscape } from './tsv.ts';

/**
 * The sink's insert path (TabSeparated rows, tsv.ts, through tsv-insert.ts): every
 * column of every row arrives in ClickHouse exactly as sent, whatever the text holds.
 */

let stack: TestStack;
beforeAll(async () => {
  // Quick retries, and a refused batch isolated after 3 attempts (the default is 5).
  stack = await startTestStack({ env: { TALLY_SINK_RETRY_DELAY_MS: '100', TALLY_SINK_MAX_ATTEMPTS: '3' } });
});
afterAll(async () => {
  await stack?.cleanup();
});

const db = () => stack.env.CLICKHOUSE_DATABASE;
const uid = () => `e-${Math.random().toString(36).slice(2)}`;

/** Texts that break a careless TSV writer: field and row separators, escapes, quotes, unicode. */
const NASTY = [
  'tab\there', 'new\nline', 'cr\rlf\r\n', 'back\\slash', '\\t literally', 'ends with backslash\\', '\\',
  `quotes ' " \``, 'unicode: é ü 日本語 🧾 \u2028', 'nul \u0000 char', '', '\t\n\\',
];

async function select(table: 'actions' | 'outcomes', ids: string[], columns: readonly string[]): Promise<Record<string, unknown>[]> {
  const cols = columns.map((c) => (c === 'ts' || c === 'ingested_at' ? `toUnixTimestamp64Milli(${c}) AS ${c}` : c === 'value' ? 'toString(value) AS value' : c));
  const rs = await stack.tally.ch!.query({
    query: `SELECT ${cols.join(', ')} FROM ${db()}.${table} WHERE event_id IN {ids:Array(String)} ORDER BY event_id`,
    query_params: { ids },
    format: 'JSONEachRow',
  });
  return rs.json();
}

describe('tsvEscape', () => {
  it('escapes exactly tab, newline, carriage return and backslash', () => {
    expect(tsvEscape('a\tb\nc\rd\\e "f" é')).toBe('a\\tb\\nc\\rd\\\\e "f" é');
    expect(tsvEscape('plain')).toBe('plain');
  });
});

/** The wire formats ingest has sent: msgpack (3, what a stream holds from before an upgrade) and Native columns (4). */
const WIRE = [
  ['msgpack (wire format 3)', encodeBatch],
  ['Native columns (wire format 4)', encodeNativeBatch],
] as const;

describe.each([
  ['TabSeparated text (a ClickHouse server; TALLY_SINK_INSERT_FORMAT=tsv)', 'tsv', ...WIRE[0]],
  ['TabSeparated text (a ClickHouse server; TALLY_SINK_INSERT_FORMAT=tsv)', 'tsv', ...WIRE[1]],
  ['a Native block through a file (chDB)', 'auto', ...WIRE[0]],
  ['a Native block through a file (chDB)', 'auto', ...WIRE[1]],
] as const)('%s rows into ClickHouse, from %s', (_name, format, _wire, encode) => {
  it('stores every column of actions and outcomes intact, stream_seq included, at the largest values', async () => {
    const now = Date.now();
    const base = { env: 'env_x', org: 'org_x', agent: 'ai_x', acct: '', src: 1 as const, ts: now - 5000, ing: now, anon: '', model: '', tin: 0, tout: 0, ttot: 0, val: '' };
    const values = ['12.345678901', '', '1000000000000000000', '0.000000001', '7'];
    const events: WireEvent[] = NASTY.flatMap((text, i): WireEvent[] => [
      // Nasty text in the dictionary columns (user_id, account, type, model, anonymous_id), the id and metadata.
      { ...base, k: 1, id: `${format}${_wire}a${i}-${text}`, type: `type ${text}`, uid: `user ${text}`, acct: `acct ${text}`, anon: text, model: `m ${text}`,
        meta: i % 2 ? JSON.stringify({ text, nested: { text } }) : text, tin: i === 0 ? Number.MAX_SAFE_INTEGER : 1200 + i, tout: 300, ttot: 1500 + i, ts: now - i },
      { ...base, k: 2, id: `${format}${_wire}o${i}-${text}`, type: `outcome ${text}`, uid: text, src: 2, val: values[i % values.length]!, meta: JSON.stringify({ text }), ts: now - i },
    ]);
    const rows = rowsFormatFor(stack.tally.ch!, format)();
    expect(rows.add(encode(events), 4242)).toBe(events.length);
    await rows.insert(db()!);

    const sorted = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const actions = sorted(events.filter((e) => e.k === 1));
    const gotActions = await select('actions', actions.map((e) => e.id), ACTION_COLUMNS);
    expect(gotActions.map((r) => ({ ...r, input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), total_tokens: Number(r.total_tokens), stream_seq: Number(r.stream_seq), ts: Number(r.ts), ingested_at: Number(r.ingested_at) }))).toEqual(
      actions.map((e) => ({
        environment_id: e.env, organization_id: e.org, agent_instance_id: e.agent, account_id: e.acct, event_id: e.id, id_source: 'client', action_type: e.type,
        ts: e.ts, ingested_at: e.ing, user_id: e.uid, anonymous_id: e.anon, model: e.model, input_tokens: e.tin, output_tokens: e.tout, total_tokens: e.ttot,
        metadata: e.meta, stream_seq: 4242,
      })),
    );
    const outcomes = sorted(events.filter((e) => e.k === 2));
    const gotOutcomes = await select('outcomes', outcomes.map((e) => e.id), OUTCOME_COLUMNS);
    expect(gotOutcomes.map((r) => ({ ...r, ts: Number(r.ts), ingested_at: Number(r.ingested_at), stream_seq: Number(r.stream_seq) }))).toEqual(
      outcomes.map((e) => ({
        environment_id: e.env, organization_id: e.org, agent_instance_id: e.agent, account_id: e.acct, event_id: e.id, id_source: 'server', outcome_type: e.type,
        value: e.val || '0', ts: e.ts, ingested_at: e.ing, user_id: e.uid, anonymous_id: e.anon, metadata: e.meta, stream_seq: 4242,
      })),
    );
  });
});

describe('Native inserts one after another (chDB)', () => {
  it('store exactly each insert\'s rows when blocks and files are reused, a large insert before small ones', async () => {
    const format = rowsFormatFor(stack.tally.ch!, 'auto');
    const now = Date.now();
    const run = uid();
    const ev = (i: number, k: 1 | 2): WireEvent => ({
      k, env: 'env_r', org: 'org_r', agent: `ai_${i % 3}`, acct: '', src: 1, ts: now - i, ing: now, anon: '', model: '', tin: i, tout: 0, ttot: i, val: k === 2 ? '1' : '',
      id: `${run}-${i}`, type: 't', uid: '', meta: JSON.stringify({ i, pad: 'x'.repeat(i % 50) }),
    });
    const sizes = [3000, 10, 1, 500];
    let next = 0;
    for (const size of sizes) {
      const rows = format();
      rows.add(encodeNativeBatch(Array.from({ length: size }, () => ev(next, next++ % 7 === 0 ? 2 : 1))), 77);
      await rows.insert(db()!);
    }
    const rs = await stack.tally.ch!.query({
      query: `SELECT (SELECT count() FROM ${db()}.actions WHERE startsWith(event_id, {run:String})) + (SELECT count() FROM ${db()}.outcomes WHERE startsWith(event_id, {run:String})) AS n,
        (SELECT sum(input_tokens) FROM ${db()}.actions WHERE startsWith(event_id, {run:String})) AS tokens`,
      query_params: { run },
      format: 'JSONEachRow',
    });
    const [got] = await rs.json<{ n: string; tokens: string }>();
    const actions = Array.from({ length: next }, (_, i) => i).filter((i) => i % 7 !== 0);
    expect(Number(got!.n)).toBe(next);
    expect(Number(got!.tokens)).toBe(actions.reduce((s, i) => s + i, 0));
  });
});

describe('Native LowCardinality columns (chDB)', () => {
  it('store every value, whatever the number of distinct values (1-, 2- and 4-byte key indexes), across batches with their own dictionaries in both wire formats, refused messages dropped', async () => {
    const format = rowsFormatFor(stack.tally.ch!, 'auto');
    const now = Date.now();
    const run = uid();
    const ev = (i: number, type: string, model: string, ts = now - i): WireEvent => ({
      k: 1, env: `env_${i % 2}`, org: 'org_w', agent: 'ai_w', acct: '', src: 1, ts, ing: now, anon: '', model, tin: i, tout: 0, ttot: i, val: '',
      id: `${run}-${i}`, type, uid: '', meta: '',
    });
    // Per insert: types and models with few (3), a few hundred (300) and over 65,536 (70,000) distinct values.
    for (const distinct of [3, 300, 70_000]) {
      const rows = format();
      const total = Math.max(distinct, 1000);
      let expected = 0n;
      for (let first = 0; first < total; first += 5000) {
        const events = Array.from({ length: Math.min(5000, total - first) }, (_, j) => ev(distinct * 1e6 + first + j, `t${(first + j) % distinct}`, `m ${(first + j) % distinct} é`));
        if (first === 5000) {
          // A message with an event time the table cannot hold, between good ones: refused whole, nothing of it stored.
          expect(() => rows.add(encodeBatch([ev(-1, 'refused type', 'refused model'), ev(-2, 't0', 'm', -5)]), 1)).toThrow(RangeError);
          // A Native message whose key index points past its keys: refused before anything of it is added.
          const bad = Buffer.from(encodeNativeBatch([ev(3e9, 'refused type 2', 'refused model 2'), ev(3e9 + 1, 't0', 'm')]));
          const typeAt = bad.indexOf('refused type 2') + 'refused type 2'.length;
          expect(bad.subarray(typeAt, typeAt + 5)).toEqual(Buffer.from([2, 0x74, 0x30, 0, 1])); // the key "t0", then the rows' indexes
          bad[typeAt + 4] = 7; // the second row's action_type: past the 2 keys
          expect(() => rows.add(bad, 1)).toThrow(WireFormatError);
        }
        // Messages of both wire formats in one insert: their keys merge into one dictionary.
        rows.add((first / 5000) % 2 ? encodeBatch(events) : encodeNativeBatch(events), 2);
        for (const e of events) expected += BigInt(e.tin);
      }
      await rows.insert(db()!);
      const rs = await stack.tally.ch!.query({
        query: `SELECT count() AS n, uniqExact(action_type) AS types, uniqExact(model) AS models, toString(sum(input_tokens)) AS tokens,
            countIf(action_type != concat('t', toString((input_tokens - {base:UInt64}) % {d:UInt64}))) AS wrong_types,
            countIf(model != concat('m ', toString((input_tokens - {base:UInt64}) % {d:UInt64}), ' é')) AS wrong_models,
            countIf(environment_id != concat('env_', toString(input_tokens % 2))) AS wrong_envs
          FROM ${db()}.actions WHERE startsWith(event_id, {run:String}) AND input_tokens >= {base:UInt64} AND input_tokens < {base:UInt64} + 1000000`,
        query_params: { run, base: distinct * 1e6, d: distinct },
        format: 'JSONEachRow',
      });
      const got = (await rs.json<Record<string, unknown>>()).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])));
      expect(got).toEqual([{ n: String(total), types: String(distinct), models: String(distinct), tokens: String(expected), wrong_types: '0', wrong_models: '0', wrong_envs: '0' }]);
    }
    const refused = await stack.tally.ch!.query({ query: `SELECT count() AS n FROM ${db()}.actions WHERE startsWith(action_type, 'refused type') OR startsWith(model, 'refused model')`, format: 'JSONEachRow' });
    expect((await refused.json<{ n: unknown }>()).map((r) => Number(r.n))).toEqual([0]);
  });
});

describe('the columns the sink writes', () => {
  it('are those of the tables, with the same types, in the order the rows are written', async () => {
    for (const [table, columns] of [['actions', ACTION_TABLE], ['outcomes', OUTCOME_TABLE]] as const) {
      const rs = await stack.tally.ch!.query({ query: `SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}`, query_params: { db: db(), t: table }, format: 'JSONEachRow' });
      const types = new Map((await rs.json<{ name: string; type: string }>()).map((c) => [c.name, c.type]));
      expect(columns.map(([name, type]) => [name, types.get(name)])).toEqual(columns.map(([name, type]) => [name, type]));
    }
  });

  it('refuses, in TabSeparated, a malformed row (the sink then retries instead of acknowledging)', async () => {
    const insert = tsvInserter(stack.tally.ch!);
    await expect(insert(`${db()}.actions`, ACTION_COLUMNS, Buffer.from('too\tfew\tfields\n'))).rejects.toThrow();
  });
});

describe('the sink end to end', () => {
  it('stores events with nasty user ids and metadata through ingest, JetStream and the sink', async () => {
    const agent = await createAgent(stack);
    // A NUL is refused at the edge (no store keeps it); every other nasty text goes through.
    const storable = NASTY.filter((text) => !text.includes('\u0000'));
    const sent = storable.map((text, i) => ({ id: uid(), user_id: `u ${text} ${i}`, metadata: { text, i, list: [text] } }));
    const res = await call(stack, 'POST', '/v1/actions', {
      key: stack.keys.development.sdk,
      body: [...sent, { id: uid(), user_id: 'nul \u0000 char' }].map((e) => ({ agent_key: agent.secret, action_type: 'tool_call', ...e })),
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ accepted: storable.length, rejected: 1 });
    expect(res.body.results.at(-1).error.message).toMatch(/`user_id` contains a NUL/);
    const rows = await waitFor(() => select('actions', sent.map((e) => e.id), ['event_id', 'user_id', 'metadata', 'stream_seq']), (r) => r.length === sent.length);
    for (const e of sent) {
      const row = rows.find((r) => r.event_id === e.id)!;
      expect(row.user_id).toBe(e.user_id);
      expect(JSON.parse(row.metadata as string)).toEqual(e.metadata);
      expect(Number(row.stream_seq)).toBeGreaterThan(0);
    }
  });
});

describe.each([
  ['TabSeparated (refused by ClickHouse, after 3 attempts)', 'tsv', /^insert refused: Code: \d+\. DB::Exception/],
  ['Native (refused by the encoder, at once)', 'auto', /^unencodable batch: "not-a-number" is not a Decimal\(38, 9\)/],
] as const)('a message whose rows cannot be stored: %s', (_name, format, reason) => {
  it('is set aside in sink_dead_letters; the messages around it are stored and the sink goes on', async () => {
    const s = format === 'auto' ? stack : await startTestStack({ env: { TALLY_SINK_RETRY_DELAY_MS: '100', TALLY_SINK_MAX_ATTEMPTS: '3', TALLY_SINK_INSERT_FORMAT: format } });
    try {
      const agent = await createAgent(s);
      const env = s.keys.development.id;
      const org = s.init.organization_id;
      const event = (id: string, k: 1 | 2, val = ''): WireEvent => ({
        k, env, org, agent: agent.id, acct: '', id, src: 1, type: k === 1 ? 'tool_call' : 'hire', ts: Date.now(), ing: Date.now(),
        uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val,
      });
      // A message ingest would never write (ingest validates values): an outcome value that is not a decimal.
      const [before, bad, after] = [uid(), uid(), uid()];
      const js = jetstream(s.tally.nc!);
      const subject = s.tally.names.eventsSubject;
      await js.publish(subject, encodeBatch([event(before, 1)]), { msgID: before });
      const refused = await js.publish(subject, encodeBatch([event(bad, 2, 'not-a-number'), event(`${bad}-a`, 1)]), { msgID: bad });
      await js.publish(subject, encodeBatch([event(after, 1)]), { msgID: after });

      const stored = await waitFor(() => actionCounts(s, agent.id), (c) => c.has(before) && c.has(after), 30_000);
      expect(stored.get(before)).toBe(1);
      const dead = await waitFor(
        async () => (await s.tally.ch!.query({ query: `SELECT stream_sequence, reason, payload_base64 FROM ${s.env.CLICKHOUSE_DATABASE}.sink_dead_letters WHERE stream_sequence = {s:UInt64}`, query_params: { s: refused.seq }, format: 'JSONEachRow' })).json<Record<string, string>>(),
        (r) => r.length > 0,
        30_000,
      );
      expect(dead).toHaveLength(1);
      expect(dead[0]!.reason).toMatch(reason);
      // The payload is kept whole, to be replayed once fixed (whatever of it was stored counts once again).
      expect(decodeBatch(Buffer.from(dead[0]!.payload_base64!, 'base64')).id).toEqual([bad, `${bad}-a`]);

      // The sink goes on: an event sent now through ingest is stored.
      const later = uid();
      const res = await call(s, 'POST', '/v1/actions', { key: s.keys.development.sdk, body: { id: later, agent_key: agent.secret, action_type: 'tool_call' } });
      expect(res.status).toBe(200);
      await waitFor(() => actionCounts(s, agent.id), (c) => c.get(later) === 1, 30_000);
    } finally {
      if (s !== stack) await s.cleanup();
    }
  });
});
