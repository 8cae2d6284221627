import { describe, expect, it } from 'vitest';
import { resourceAgentKey, spanToAction, tokenCount } from './mapping.ts';
import type { OtlpSpan } from './model.ts';

const span = (name: string, attributes: OtlpSpan['attributes']): OtlpSpan => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  parentSpanId: '',
  name,
  kind: 1,
  startTimeMs: 1_700_000_000_000,
  endTimeMs: 1_700_000_000_250,
  attributes,
  statusCode: 0,
  scope: 's',
});
const noRules = { taggedActions: new Set<string>() };

describe('value-python spans', () => {
  const resource = { 'service.name': 'value-control-agent', 'value.agent.id': 'ain_1', 'value.agent.name': 'screener' };

  it('meters a value.action span under its value.action.name, with user, anonymous id, attributes and LLM fields', () => {
    const m = spanToAction(
      span('value.action', {
        'value.action.name': 'resume_screened',
        'value.action.user_id': 'u1',
        'value.action.anonymous_id': 'a1',
        'value.action.user_attributes': '{"candidate": "c-1", "score": 0.82}',
        'value.action.llm.model': 'gemini-2.0-flash',
        'value.action.llm.input_tokens': 10,
        'value.action.llm.output_tokens': 4,
        'value.action.llm.prompt': 'never copied',
      }),
      resource,
      noRules,
      resourceAgentKey(resource),
    )!;
    expect(m.warnings).toEqual([]);
    expect(m.action).toMatchObject({ action_type: 'resume_screened', agent_key: 'ain_1', user_id: 'u1', anonymous_id: 'a1', id: 'b7ad6b7169203331' });
    expect(m.action.metadata).toMatchObject({
      attributes: { candidate: 'c-1', score: 0.82 },
      model: 'gemini-2.0-flash',
      input_tokens: 10,
      output_tokens: 4,
      agent_name: 'screener',
      source: 'otlp:value.action',
    });
    expect(JSON.stringify(m.action)).not.toContain('never copied');
  });

  it('ignores a value.action span without a name, and other spans without a rule', () => {
    expect(spanToAction(span('value.action', {}), resource, noRules, undefined)).toBeUndefined();
    expect(spanToAction(span('work', { 'value.action.name': 'x' }), resource, noRules, undefined)).toBeUndefined();
  });

  it('keeps the user of an action context on auto-instrumented LLM spans', () => {
    const m = spanToAction(span('chat', { 'gen_ai.operation.name': 'chat', 'value.action.user_id': 'u2', 'value.action.anonymous_id': 'a2' }), resource, noRules, undefined)!;
    expect(m.action).toMatchObject({ action_type: 'llm_call', user_id: 'u2', anonymous_id: 'a2' });
  });

  it('warns about user_attributes that are not a JSON object', () => {
    const m = spanToAction(span('value.action', { 'value.action.name': 'x', 'value.action.user_attributes': '[1' }), resource, noRules, undefined)!;
    expect(m.warnings).toEqual(['`value.action.user_attributes` is not a JSON object text; left out']);
    expect(m.action.metadata).not.toHaveProperty('attributes');
  });
});

describe('token counts', () => {
  it.each([
    [120, 120],
    [0, 0],
    ['120', 120],
    [' 7 ', 7],
    ['999999999999999', 999999999999999],
  ])('%j is %j', (v, n) => expect(tokenCount(v)).toBe(n));

  it.each([[12.5], [-3], ['12.5'], ['-3'], ['many'], [''], ['1e3'], ['9999999999999999'], [2 ** 53], [true], [null]])('%j is not a count', (v) => {
    expect(tokenCount(v)).toBeUndefined();
  });

  it('leaves a bad count out with a warning naming the attribute; the call is still metered', () => {
    const m = spanToAction(span('chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 12.5, 'gen_ai.usage.output_tokens': '30' }), {}, noRules, 'k')!;
    expect(m.action.metadata).toMatchObject({ output_tokens: 30 });
    expect(m.action.metadata).not.toHaveProperty('input_tokens');
    expect(m.warnings).toEqual(['`gen_ai.usage.input_tokens` 12.5 is not a non-negative integer; the call is metered without it']);
  });
});
