import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, type TestStack } from './harness.ts';

/**
 * Promises of the README and docs/api-reference.md that no example shows (the examples
 * themselves run in docs-examples.integration.test.ts): the `details` of a single event's
 * error, and the OTLP/gRPC port chosen for TALLY_OTLP_GRPC_PORT=0 in the start log line.
 */
let stack: TestStack;
const logLines: string[] = [];
const writeStderr = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  // Capture the JSON log lines of the start (TALLY_LOG_LEVEL=info: `tally started` is an info line).
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logLines.push(String(chunk));
    return (writeStderr as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    stack = await startTestStack({ env: { TALLY_LOG_LEVEL: 'info', TALLY_OTLP_GRPC_PORT: '0' } });
  } finally {
    process.stderr.write = writeStderr;
  }
});
afterAll(async () => stack?.cleanup());

describe('a single event rejected for a field: the error names it in details [{path, message}]', () => {
  const sdk = () => stack.keys.development.sdk;

  it.each([
    ['an unknown field', (agent: string) => ({ agent_key: agent, action_type: 'llm_call', colour: 'red' }), 'colour'],
    ['a field of the wrong type', (agent: string) => ({ agent_key: agent, action_type: 42 }), 'action_type'],
    ['a missing required field', (agent: string) => ({ agent_key: agent }), 'action_type'],
    ['a bad timestamp', (agent: string) => ({ agent_key: agent, action_type: 'llm_call', timestamp: 'yesterday' }), 'timestamp'],
    ['a NUL in a metadata value', (agent: string) => ({ agent_key: agent, action_type: 'llm_call', metadata: { note: 'a\u0000b' } }), 'metadata.note'],
    ['a bad token count', (agent: string) => ({ agent_key: agent, action_type: 'llm_call', metadata: { input_tokens: -3 } }), 'metadata.input_tokens'],
    ['a bad cost input', (agent: string) => ({ agent_key: agent, action_type: 'llm_call', metadata: { cost: { amount: 1, currency: 'XYZ' } } }), 'metadata.cost.currency'],
    ['no agent_key with an SDK key', () => ({ action_type: 'llm_call' }), 'agent_key'],
  ])('%s', async (_what, event, path) => {
    const agent = await createAgent(stack);
    const r = await call(stack, 'POST', '/v1/actions', { key: sdk(), body: event(agent.id) });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.details).toEqual([{ path, message: r.body.error.message }]);
  });

  it('an outcome with a bad value names `value`; a timestamp out of range (422) names `timestamp`', async () => {
    const agent = await createAgent(stack);
    const bad = await call(stack, 'POST', '/v1/outcomes', { key: sdk(), body: { agent_key: agent.id, outcome_type: 'hire', value: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: 'value', message: bad.body.error.message }]);
    const old = await call(stack, 'POST', '/v1/actions', { key: sdk(), body: { agent_key: agent.id, action_type: 'x', timestamp: '2000-01-01T00:00:00Z' } });
    expect(old.status).toBe(422);
    expect(old.body.error.details).toEqual([{ path: 'timestamp', message: old.body.error.message }]);
  });

  it('a rejection without a field at fault (an unknown agent) has no details; batches answer {code, message} per event as before', async () => {
    const r = await call(stack, 'POST', '/v1/actions', { key: sdk(), body: { agent_key: 'ai_nobody', action_type: 'llm_call' } });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toBeUndefined();
    const agent = await createAgent(stack);
    const batch = await call(stack, 'POST', '/v1/actions', { key: sdk(), body: [{ agent_key: agent.id, action_type: 'ok' }, { agent_key: agent.id, colour: 1 }] });
    expect(batch.status).toBe(207);
    expect(batch.body.results[1]).toEqual({ index: 1, status: 'rejected', error: { code: 'validation_failed', message: expect.stringContaining('action_type') } });
  });
});

describe('TALLY_OTLP_GRPC_PORT=0: the chosen port is in the `tally started` log line', () => {
  it('logs otlp_grpc_port, the port the receiver listens on', () => {
    const started = logLines.flatMap((chunk) => chunk.split('\n')).filter((l) => l.includes('"tally started"')).map((l) => JSON.parse(l));
    expect(started).toHaveLength(1);
    const port = stack.tally.ingest!.grpcPort!;
    expect(port).toBeGreaterThan(0);
    expect(started[0].otlp_grpc_port).toBe(port);
    expect(started[0].port).toBe(stack.tally.port);
  });
});
