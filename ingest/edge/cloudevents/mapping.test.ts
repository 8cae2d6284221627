import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.ts';
import { normalizeStep, validateStep } from '../pipeline/normalize.ts';
import { dataValueTexts, decodeCloudEvents } from './decode.ts';
import { cloudEventMessage, cloudEventToTally } from './mapping.ts';

const ce = (extra: Record<string, unknown> = {}) => ({ specversion: '1.0', id: 'evt-1', source: 'svc', type: 'llm_call', subject: 'ain_1', ...extra });

/** The Tally event a mapped CloudEvent becomes after the pipeline's validation and normalization. */
function normalized(e: unknown, valueText?: string) {
  const m = cloudEventToTally(e, { valueText });
  if (!m.item.ok) throw new Error(m.item.message);
  const v = validateStep(m.kind, m.item.value);
  if (!v.ok) throw new Error(v.message);
  const n = normalizeStep(m.kind, v.value, Date.parse('2026-11-21T10:00:00Z'), undefined);
  if (!n.ok) throw new Error(n.message);
  return n.value;
}

const refusal = (e: unknown) => {
  const m = cloudEventToTally(e);
  return m.item.ok ? undefined : m.item.message;
};

describe('cloudEventToTally', () => {
  it('maps an action: id, subject, time, type, data as metadata (LLM fields read from it) and source as _source', () => {
    const m = cloudEventToTally(
      ce({ time: '2026-11-21T09:59:00.000Z', datacontenttype: 'application/json', data: { model: 'gpt-4o', input_tokens: 12, output_tokens: 3, user_id: 'u1' } }),
    );
    expect(m).toEqual({
      kind: 'action',
      id: 'evt-1',
      item: {
        ok: true,
        value: {
          id: 'evt-1',
          action_type: 'llm_call',
          agent_key: 'ain_1',
          timestamp: '2026-11-21T09:59:00.000Z',
          metadata: { model: 'gpt-4o', input_tokens: 12, output_tokens: 3, user_id: 'u1', _source: 'svc' },
        },
      },
    });
    const n = normalized(ce({ time: '2026-11-21T09:59:00.000Z', data: { model: 'gpt-4o', input_tokens: 12, output_tokens: 3, user_id: 'u1' } }));
    expect(n).toMatchObject({ kind: 'action', id: 'evt-1', agentKey: 'ain_1', type: 'llm_call', ts: Date.parse('2026-11-21T09:59:00Z'), model: 'gpt-4o', tin: 12, tout: 3, ttot: 15, uid: 'u1' });
  });

  it('maps `outcome.<name>` types to outcomes, data.value to the exact value (not kept in metadata)', () => {
    const m = cloudEventToTally(ce({ type: 'outcome.converted_lead', data: { value: 123456789.12345679, crm: 'x' } }), { valueText: '123456789.123456789' });
    expect(m.kind).toBe('outcome');
    expect(m.item).toEqual({
      ok: true,
      value: { id: 'evt-1', outcome_type: 'converted_lead', value: '123456789.123456789', agent_key: 'ain_1', metadata: { crm: 'x', _source: 'svc' } },
    });
    expect(normalized(ce({ type: 'outcome.hire', data: { value: 1e18 } }), '1000000000000000000').val).toBe('1000000000000000000');
    expect(normalized(ce({ type: 'outcome.hire', data: { value: '0.000000001' } })).val).toBe('0.000000001');
    // A number text that is not the parsed value's is not used.
    expect((cloudEventToTally(ce({ type: 'outcome.hire', data: { value: 2 } }), { valueText: '3' }).item as { value: { value: unknown } }).value.value).toBe(2);
  });

  it('treats time and subject null as absent, and keeps dataschema and extension attributes as _<name> without replacing data keys', () => {
    const m = cloudEventToTally(ce({ subject: null, time: null, dataschema: 'https://x/schema', traceparent: '00-abc', source: 'svc', data: { _source: 'mine' } }));
    expect(m.item).toEqual({ ok: true, value: { id: 'evt-1', action_type: 'llm_call', metadata: { _source: 'mine', _dataschema: 'https://x/schema', _traceparent: '00-abc' } } });
  });

  it('refuses what is not a CloudEvent Tally can meter, naming the attribute', () => {
    expect(refusal([ce()])).toBe('each CloudEvent must be a JSON object');
    const { specversion: _, ...noVersion } = ce();
    expect(refusal(noVersion)).toContain('`specversion` is required');
    expect(refusal(ce({ specversion: '0.3' }))).toContain('`specversion` must be "1.0"');
    for (const name of ['id', 'source', 'type']) {
      const e: Record<string, unknown> = ce();
      delete e[name];
      expect(refusal(e)).toBe(`\`${name}\` is required`);
      expect(refusal(ce({ [name]: '' }))).toBe(`\`${name}\` must be a non-empty string`);
    }
    expect(refusal(ce({ type: 'outcome.' }))).toContain('names no outcome type');
    expect(refusal(ce({ type: 'outcome.hire', data: { crm: 1 } }))).toContain('`data.value` is required for an outcome');
    expect(refusal(ce({ data: [1] }))).toBe('`data` must be a JSON object');
    expect(refusal(ce({ data: 'text' }))).toBe('`data` must be a JSON object');
    expect(refusal(ce({ data_base64: 'AAAA' }))).toContain('`data_base64` is not supported');
    expect(refusal(ce({ datacontenttype: 'text/plain' }))).toContain('`datacontenttype` must be application/json');
    expect(refusal(ce({ user_id: 'u1' }))).toContain('unknown attribute `user_id`');
    expect(refusal(ce({ data: { note: 'a\u0000b' } }))).toContain('`data.note` contains a NUL character');
    // The kind of a refused event is still known from its type (its results are counted per kind).
    expect(cloudEventToTally(ce({ type: 'outcome.hire', specversion: '2' })).kind).toBe('outcome');
  });

  it('leaves type errors of subject and time to the pipeline, whose messages name the attributes', () => {
    const m = cloudEventToTally(ce({ subject: 7 }));
    const v = validateStep(m.kind, (m.item as { value: unknown }).value);
    expect(v.ok ? '' : cloudEventMessage(v.message)).toBe('`subject`: expected string');
  });
});

describe('cloudEventMessage', () => {
  it('names CloudEvents attributes instead of Tally fields', () => {
    expect(cloudEventMessage('`agent_key` is required')).toBe('`subject` is required');
    expect(cloudEventMessage('`timestamp` is more than 35 days in the past')).toBe('`time` is more than 35 days in the past');
    expect(cloudEventMessage('`metadata.input_tokens` must be a non-negative integer')).toBe('`data.input_tokens` must be a non-negative integer');
    expect(cloudEventMessage('`value` must be a decimal from 0 to 10^18')).toBe('`data.value` must be a decimal from 0 to 10^18');
    expect(cloudEventMessage('no agent instance with this agent_key in this environment')).toBe(
      'no agent instance with this `subject` (agent instance id or secret) in this environment',
    );
    expect(cloudEventMessage('`id`: expected string length less or equal to 128')).toBe('`id`: expected string length less or equal to 128');
  });
});

describe('decodeCloudEvents', () => {
  const body = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof AppError ? `${err.status} ${err.message}` : String(err);
    }
    return 'no error';
  };

  it('reads one event, a batch, or either as application/json; other types are a 415', () => {
    expect(decodeCloudEvents(body(ce()), 'application/cloudevents+json').events).toEqual([ce()]);
    expect(decodeCloudEvents(body([ce(), ce()]), 'application/cloudevents-batch+json; charset=utf-8')).toMatchObject({ single: false, events: [ce(), ce()] });
    expect(decodeCloudEvents(body(ce()), 'application/json').single).toBe(true);
    expect(decodeCloudEvents(body([ce()]), 'application/json').single).toBe(false);
    expect(code(() => decodeCloudEvents(body(ce()), 'text/plain'))).toMatch(/^415 Content-Type text\/plain is not supported/);
    expect(code(() => decodeCloudEvents(body(ce()), undefined))).toMatch(/^415 Content-Type \(none\)/);
    expect(code(() => decodeCloudEvents(body([ce()]), 'application/cloudevents+json'))).toMatch(/^400 .*application\/cloudevents-batch\+json/);
    expect(code(() => decodeCloudEvents(body(ce()), 'application/cloudevents-batch+json'))).toMatch(/^400 .*JSON array/);
    expect(code(() => decodeCloudEvents(body('[]'), 'application/json'))).toBe('400 the batch holds no events');
    expect(code(() => decodeCloudEvents(body('{'), 'application/json'))).toMatch(/^400 request body is not valid JSON/);
    expect(code(() => decodeCloudEvents(body('5'), 'application/json'))).toMatch(/^400 request body must be a CloudEvent/);
    expect(code(() => decodeCloudEvents(body(new Array(10_001).fill(ce())), 'application/json'))).toMatch(/^413 a request may carry at most 10000 events/);
  });

  it('keeps the number text of each event\'s data.value only', () => {
    const text = `[{"id":"a","value":1,"data":{"value":123456789.123456789,"x":{"value":5}}},{"id":"b","data":{"n":[1,2],"value":1E-7}},{"data":{"value":"7"}},{"id":"\\"value\\"","data":{"k":"v","value":-0.5e2}}]`;
    expect(dataValueTexts(text)).toEqual(['123456789.123456789', '1E-7', undefined, '-0.5e2']);
    expect(dataValueTexts('{"type":"outcome.x","data":{"value":999999999999999999}}')).toEqual(['999999999999999999']);
    expect(decodeCloudEvents(Buffer.from(text), 'application/json').valueTexts[0]).toBe('123456789.123456789');
  });
});
