import { describe, expect, it } from 'vitest';
import { pack } from 'msgpackr';
import { decodeEvents } from './decode.ts';
import { decimalString, normalizeStep, validateStep } from './normalize.ts';
import { AppError } from '../../../shared/errors.ts';
import { BodyBudget } from '../../../shared/http/body-budget.ts';

const NOW = Date.UTC(2026, 10, 21, 12);

describe('decodeEvents', () => {
  it.each([
    ['one object', '{"a":1}', 'application/json', true, 1],
    ['an array', '[{"a":1},{"a":2}]', 'application/json; charset=utf-8', false, 2],
    ['{events}', '{"events":[{"a":1}]}', undefined, false, 1],
    ['NDJSON with blank lines', '{"a":1}\n\n{"a":2}\n', 'application/x-ndjson', false, 2],
  ])('%s', (_n, body, type, single, count) => {
    const d = decodeEvents(Buffer.from(body), type);
    expect(d.single).toBe(single);
    expect(d.items).toHaveLength(count);
  });
  it('decodes msgpack', () => {
    const d = decodeEvents(Buffer.from(pack([{ agent_key: 'a', action_type: 'b' }])), 'application/msgpack');
    expect(d.items[0]).toEqual({ ok: true, value: { agent_key: 'a', action_type: 'b' } });
  });
  it.each([
    ['', 'application/json', 'invalid_body'],
    ['{', 'application/json', 'invalid_json'],
    ['"str"', 'application/json', 'invalid_body'],
    ['{"events": 3}', 'application/json', 'invalid_body'],
    ['{}', 'text/xml', 'unsupported_media_type'],
  ])('rejects %j (%s)', (body, type, code) => {
    try {
      decodeEvents(Buffer.from(body), type);
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).code).toBe(code);
    }
  });
});

describe('decodeEvents within the body budget', () => {
  const MiB = 1024 * 1024;
  const codeOf = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (err) {
      return (err as AppError).code;
    }
    return undefined;
  };
  /** A msgpack array of `n` empty maps, after `prefix` (e.g. an outer array's header). */
  const emptyMaps = (n: number, prefix: number[] = []) => Buffer.concat([Buffer.from(prefix), Buffer.from([0xdd, n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]), Buffer.alloc(n, 0x80)]);

  it('refuses a msgpack array of more than 10,000 events from its header, before decoding or taking memory for it', () => {
    const memory = new BodyBudget(64 * MiB).reserve();
    expect(codeOf(() => decodeEvents(emptyMaps(4 * MiB), 'application/msgpack', false, memory))).toBe('too_many_events');
    expect(memory.held).toBe(0);
  });

  it.each([
    ['a JSON array of 1.4 M empty arrays (4.2 MB)', Buffer.from('[' + '[],'.repeat(1_400_000) + '[]]'), 'application/json'],
    ['NDJSON of 1 M empty objects', Buffer.from('{}\n'.repeat(1_000_000)), 'application/x-ndjson'],
    ['a msgpack event holding 4 M empty maps', emptyMaps(4 * MiB, [0x91]), 'application/msgpack'],
  ])('takes what the containers of %s will take before parsing: 413 when it can never fit', (_name, body, type) => {
    const budget = new BodyBudget(64 * MiB);
    const memory = budget.reserve();
    expect(codeOf(() => decodeEvents(body, type, false, memory))).toBe('payload_too_large');
    expect(budget.used).toBe(0);
  });

  it('takes little beyond its body for an ordinary batch', () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({ agent_key: 'a', action_type: 'llm.call', id: `e${i}`, metadata: { model: 'm', input_tokens: i } }));
    const json = Buffer.from(JSON.stringify(events));
    const memory = new BodyBudget(64 * MiB).reserve();
    expect(decodeEvents(json, 'application/json', false, memory).items).toHaveLength(1000);
    expect(memory.held).toBe(2000 * 64 + 64);
  });
});

describe('validate and normalize', () => {
  const ok = (kind: 'action' | 'outcome', v: unknown, headerId?: string) => {
    const a = validateStep(kind, v);
    if (!a.ok) throw new Error(a.message);
    const n = normalizeStep(kind, a.value, NOW, headerId);
    if (!n.ok) throw new Error(n.message);
    return n.value;
  };
  it('extracts tokens, model and users from metadata in the common shapes', () => {
    expect(ok('action', { agent_key: 'k', action_type: 'llm_call', metadata: { model: 'm', input_tokens: 5, output_tokens: 7 } })).toMatchObject({ tin: 5, tout: 7, ttot: 12, model: 'm' });
    expect(ok('action', { agent_key: 'k', action_type: 'llm_call', metadata: { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 9 } } })).toMatchObject({ tin: 3, tout: 4, ttot: 9 });
    expect(ok('action', { agent_key: 'k', action_type: 'x', metadata: { user_id: 'u1' } })).toMatchObject({ uid: 'u1' });
    expect(ok('action', { agent_key: 'k', action_type: 'x', user_id: 'top', metadata: { user_id: 'meta' } })).toMatchObject({ uid: 'top' });
  });
  it('takes the id from id, event_id, idempotency_key or the header, and defaults the time to now', () => {
    expect(ok('action', { agent_key: 'k', action_type: 'x', event_id: 'E' })).toMatchObject({ id: 'E', ts: NOW });
    expect(ok('action', { agent_key: 'k', action_type: 'x', idempotency_key: 'I' })).toMatchObject({ id: 'I' });
    expect(ok('action', { agent_key: 'k', action_type: 'x' }, 'H')).toMatchObject({ id: 'H' });
    expect(ok('action', { agent_key: 'k', action_type: 'x' }).id).toBeUndefined();
  });
  it.each([
    [{ agent_key: 'k', action_type: 'x', timestamp: new Date(NOW - 34 * 86400_000).toISOString() }, true],
    [{ agent_key: 'k', action_type: 'x', timestamp: new Date(NOW - 36 * 86400_000).toISOString() }, false],
    [{ agent_key: 'k', action_type: 'x', timestamp: new Date(NOW + 4 * 60_000).toISOString() }, true],
    [{ agent_key: 'k', action_type: 'x', timestamp: new Date(NOW + 6 * 60_000).toISOString() }, false],
    [{ agent_key: 'k', action_type: 'x', id: 'has space' }, false],
    [{ agent_key: 'k', action_type: 'x', id: 'x'.repeat(129) }, false],
    [{ agent_key: 'k', action_type: '' }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { total_tokens: 1.5 } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { '__proto__': { polluted: 1 } } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: [1, 2] }, false],
    // metadata is an object: depth 1; eight levels are allowed, nine are not.
    [{ agent_key: 'k', action_type: 'x', metadata: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: { a: [[[[[[[1]]]]]]] } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: { a: [[[[[[[[1]]]]]]]] } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { text: '{{{{{{{{{{[[[[[[[[[[' } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: null }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { prompt_tokens: -1 } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { usage: { completion_tokens: 'many' } } }, false],
    // Token classes: non-negative integers, parts of their base count when it is sent.
    [{ agent_key: 'k', action_type: 'x', metadata: { input_tokens: 10, cache_read_input_tokens: 6, cache_creation_input_tokens: 4 } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: { input_tokens: 10, cache_read_input_tokens: 6, cache_creation_input_tokens: 5 } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { usage: { prompt_tokens: 3, cache_read_input_tokens: 4 } } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { cache_read_input_tokens: 4 } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: { output_tokens: 10, reasoning_tokens: 10 } }, true],
    [{ agent_key: 'k', action_type: 'x', metadata: { output_tokens: 10, reasoning_tokens: 11 } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { reasoning_tokens: 1.5 } }, false],
    [{ agent_key: 'k', action_type: 'x', metadata: { usage: { cache_creation_input_tokens: '3' } } }, false],
    [{ agent_key: 'k', action_type: 'x', id: 'A', event_id: 'B' }, false],
    [{ agent_key: 'k', action_type: 'x', id: 'A', idempotency_key: 'A' }, true],
  ])('accepts %j: %s', (event, accepted) => {
    const v = validateStep('action', event);
    const n = v.ok ? normalizeStep('action', v.value, NOW, undefined) : v;
    expect(n.ok).toBe(accepted);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it.each([
    [0.1, '0.1'],
    [1e-7, '0.0000001'],
    [1.5e-9, '0.0000000015'],
    [1e21, '1000000000000000000000'],
    [123.456, '123.456'],
  ])('decimalString(%d) = %s', (n, s) => expect(decimalString(n)).toBe(s));
});

describe('batch answer', () => {
  it('is the JSON of {accepted, rejected, created_at, results}, whatever the ids hold', async () => {
    const { batchJson } = await import('../events-handler.ts');
    const ids = ['evt_01JD8Z0000ABCDEFGHIJ0001', 'say"hi"', 'back\\slash', 'tab\there', 'naïve-😀', '\ud800lone', '{}[]:,'];
    const results = [
      ...ids.map((id, index) => ({ index, id, status: 'processed' as const })),
      { index: ids.length, status: 'rejected' as const, error: { code: 'validation_failed' as const, message: '`action_type` is "required"' } },
    ];
    const text = batchJson(ids.length, 1, '2026-11-21T10:00:00.000Z', results);
    expect(text).toBe(JSON.stringify({ accepted: ids.length, rejected: 1, created_at: '2026-11-21T10:00:00.000Z', results }));
    expect(JSON.parse(text).results[1].id).toBe('say"hi"');
  });
});
