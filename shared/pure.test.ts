import { describe, expect, it } from 'vitest';
import { AppError, codeToStatus, ErrorCode, errorBody } from './errors.ts';
import { Router } from './http/router.ts';
import { parseTimestamp } from './time.ts';
import { LoadingCache } from './auth/loading-cache.ts';
import { parseEnv, ConfigError } from './config/parse.ts';
import { parseCommonConfig } from './config/common.ts';
import { Packr, unpack } from 'msgpackr';
import { batchEvents, decodeBatch, encodeBatch, WireFormatError, type WireEvent } from './events/wire.ts';

describe('error table', () => {
  it.each(Object.values(ErrorCode))('maps %s to a 4xx or 5xx status', (code) => {
    const s = codeToStatus(code);
    expect(s >= 400 && s < 600).toBe(true);
  });
  it('has the spec body for 401', () => {
    expect(errorBody(new AppError('unauthorized', 'bad key'), 'req_1')).toEqual({ error: { code: 'unauthorized', message: 'bad key', request_id: 'req_1' } });
    expect(codeToStatus('unauthorized')).toBe(401);
  });
});

describe('router', () => {
  const r = new Router();
  const h = () => ({ status: 200 });
  r.add({ method: 'GET', path: '/api/v1/account/all', handler: h });
  r.add({ method: 'GET', path: '/api/v1/account/:account_id', handler: h });
  r.add({ method: 'PUT', path: '/api/v1/account/:account_id', handler: h });
  it.each([
    ['GET', '/api/v1/account/all', 'found', {}],
    ['GET', '/api/v1/account/all/', 'found', {}],
    ['GET', '/api/v1/account/acc_1', 'found', { account_id: 'acc_1' }],
    ['GET', '/api/v1/account/a%20b', 'found', { account_id: 'a b' }],
    ['DELETE', '/api/v1/account/acc_1', 'method_not_allowed', undefined],
    ['GET', '/api/v1/nothing', 'not_found', undefined],
    ['GET', '/api/v1/account/%E0%A4%A', 'not_found', undefined],
  ])('%s %s -> %s', (method, path, kind, params) => {
    const m = r.match(method, path);
    expect(m.kind).toBe(kind);
    if (m.kind === 'found') expect(m.params).toEqual(params);
  });
  it('refuses a duplicate route', () => {
    expect(() => r.add({ method: 'GET', path: '/api/v1/account/all', handler: h })).toThrow(/duplicate/);
  });
});

describe('timestamps', () => {
  it.each([
    ['2026-11-21T10:00:00Z', Date.UTC(2026, 10, 21, 10)],
    ['2026-11-21T10:00:00.123Z', Date.UTC(2026, 10, 21, 10, 0, 0, 123)],
    ['2026-11-21T12:00:00+02:00', Date.UTC(2026, 10, 21, 10)],
    ['2026-11-21T10:00:00', Date.UTC(2026, 10, 21, 10)],
    ['2026-11-21', Date.UTC(2026, 10, 21)],
    ['2026-11-21 10:00', Date.UTC(2026, 10, 21, 10)],
    ['yesterday', undefined],
    ['2026-13-45T10:00:00Z', undefined],
    ['2026-02-30', undefined],
    ['2028-02-29', Date.UTC(2028, 1, 29)],
    ['2026-11-21T24:00:00Z', undefined],
    ['1700000000', undefined],
  ])('%s', (s, expected) => expect(parseTimestamp(s)).toBe(expected));
});

describe('LoadingCache', () => {
  it('loads a key once for concurrent misses, caches misses briefly, and drops invalidated values', async () => {
    let loads = 0;
    const c = new LoadingCache<string>(async (k) => {
      loads++;
      return k === 'none' ? undefined : `v:${k}`;
    }, { ttlMs: 60_000, negativeTtlMs: 60_000, maxEntries: 2 });
    expect(await Promise.all([c.get('a'), c.get('a')])).toEqual(['v:a', 'v:a']);
    expect(loads).toBe(1);
    expect(c.peek('a')).toEqual({ hit: true, value: 'v:a' });
    expect(await c.get('none')).toBeUndefined();
    expect(c.peek('none')).toEqual({ hit: true, value: undefined });
    c.invalidate((v) => v === 'v:a');
    expect(c.peek('a').hit).toBe(false);
    expect(c.peek('none').hit).toBe(false); // misses go with any invalidation
    await c.get('b');
    await c.get('c');
    await c.get('d');
    expect(c.peek('b').hit).toBe(false); // bounded: oldest evicted
  });
  it('does not cache a value loaded across an invalidation', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const c = new LoadingCache<string>(async () => {
      await gate;
      return 'stale';
    }, { ttlMs: 60_000, negativeTtlMs: 1, maxEntries: 10 });
    const p = c.get('k');
    c.clear();
    release();
    expect(await p).toBe('stale');
    expect(c.peek('k').hit).toBe(false);
  });
});

describe('config', () => {
  it('applies defaults and converts numbers', () => {
    const c = parseCommonConfig({ TALLY_HTTP_PORT: '9090' });
    expect(c.httpPort).toBe(9090);
    expect(c.clickhouse.database).toBe('tally');
    expect(c.natsPrefix).toBe('TALLY_');
    expect(Object.isFrozen(c)).toBe(true);
  });
  it.each([
    [{ TALLY_HTTP_PORT: 'eighty' }, /TALLY_HTTP_PORT/],
    [{ TALLY_HTTP_PORT: '70000' }, /TALLY_HTTP_PORT/],
    [{ CLICKHOUSE_DATABASE: 'x; DROP' }, /CLICKHOUSE_DATABASE/],
    [{ TALLY_NATS_PREFIX: 'a.b' }, /TALLY_NATS_PREFIX/],
  ])('fails loudly on %o', (env, msg) => {
    expect(() => parseCommonConfig(env)).toThrow(ConfigError);
    expect(() => parseCommonConfig(env)).toThrow(msg);
  });
  it('is exported for role configs', () => expect(typeof parseEnv).toBe('function'));
});

describe('wire format', () => {
  it('round-trips a batch and rejects garbage', () => {
    const e: WireEvent = { k: 2, env: 'e', org: 'o', agent: 'a', acct: '', id: 'i', src: 1, type: 't', ts: 1_763_733_022_705, ing: 2, uid: '', anon: 'x', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '1.5' };
    const a: WireEvent = { ...e, k: 1, agent: 'b', id: 'j', type: 'llm', model: 'gpt', tin: 2 ** 40, tout: 3, ttot: 2 ** 40 + 3, val: '', uid: 'u' };
    const decoded = decodeBatch(encodeBatch([e, a, e]));
    expect(batchEvents(decoded)).toEqual([e, a, e]);
    expect(decoded.dict.filter((s) => s === 'e')).toHaveLength(1); // dictionary-coded
    expect(() => decodeBatch(new Uint8Array([0xc1]))).toThrow(WireFormatError);
    expect(() => decodeBatch(encodeBatch([]).fill(0x90, 0, 1))).toThrow(WireFormatError);
  });
  it('carries text with newlines (as arrays) and still reads format 2', () => {
    const e: WireEvent = { k: 1, env: 'e', org: 'o', agent: 'a', acct: '', id: 'i', src: 1, type: 't', ts: 1, ing: 2, uid: '', anon: '', meta: '{"a":"x\\ny"}', model: '', tin: 0, tout: 0, ttot: 0, val: '' };
    const odd = { ...e, id: 'line\nbreak', meta: 'raw\ntext' };
    expect(batchEvents(decodeBatch(encodeBatch([e, odd, e])))).toEqual([e, odd, e]);
    expect(batchEvents(decodeBatch(encodeBatch([e])))).toEqual([e]);
    const many = Array.from({ length: 300 }, (_, i) => ({ ...e, agent: `a${i}`, tin: i }));
    const wide = decodeBatch(encodeBatch(many));
    expect(wide.agent).toBeInstanceOf(Uint16Array);
    expect(wide.tin).toBeInstanceOf(Uint32Array);
    expect(batchEvents(wide)).toEqual(many);
    const unicode = { ...e, type: 'réservé', uid: 'ユーザー', meta: '{"note":"é€😀"}', id: 'ünï' };
    expect(batchEvents(decodeBatch(encodeBatch([e, unicode, unicode])))).toEqual([e, unicode, unicode]);
    // More than 65,536 dictionary entries: codes travel as 32-bit integers.
    const users = Array.from({ length: 70_000 }, (_, i) => ({ ...e, uid: `u${i}` }));
    const huge = decodeBatch(encodeBatch(users));
    expect(huge.uid).toBeInstanceOf(Uint32Array);
    expect(batchEvents(huge)).toEqual(users);
    const v3 = unpack(encodeBatch([e, e])) as unknown[];
    expect(v3[0]).toBe(3);
    const v2 = [2, ...v3.slice(1, -3), ...v3.slice(-3).map((col) => (col as string).split('\n'))];
    expect(batchEvents(decodeBatch(new Packr({ useRecords: false, moreTypes: true }).pack(v2)))).toEqual([e, e]);
  });
  it('refuses dictionary codes outside the dictionary, and code columns of the wrong length', () => {
    const e: WireEvent = { k: 1, env: 'e', org: 'o', agent: 'a', acct: '', id: 'i', src: 1, type: 't', ts: 1, ing: 2, uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '' };
    const packr = new Packr({ useRecords: false, moreTypes: true });
    const v = unpack(encodeBatch([e, e])) as unknown[];
    const env = 3 + 2; // [version, n, dict, k, src, env, ...]
    expect(() => decodeBatch(packr.pack(v.with(env, new Uint8Array([0, (v[2] as string[]).length]))))).toThrow(/env is not 2 codes within the dictionary/);
    expect(() => decodeBatch(packr.pack(v.with(env, new Uint8Array([0]))))).toThrow(WireFormatError);
    expect(batchEvents(decodeBatch(packr.pack(v)))).toEqual([e, e]);
  });
});

describe('ids', () => {
  it('gives unique sequential ids within and across milliseconds', async () => {
    const { newSequentialId } = await import('./ids.ts');
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) ids.add(newSequentialId('evt', 1_700_000_000_000 + (i % 3 === 0 ? 1 : 0)));
    // The prefix of a millisecond is drawn again when the millisecond changes: still unique.
    expect(ids.size).toBe(10_000);
  });
});

describe('jsonDepth', () => {
  it.each([
    ['{}', 1],
    ['[[[]]]', 3],
    ['{"a": "[[[[{{{"}', 1],
    ['{"a": "\\"[[["}', 1],
    ['1', 0],
    ['[{"a": [1, {"b": []}]}]', 5],
  ])('%s -> %d', async (text, depth) => {
    const { jsonDepth } = await import('./http/server.ts');
    expect(jsonDepth(text)).toBe(depth);
  });
});
