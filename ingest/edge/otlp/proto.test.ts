import { describe, expect, it } from 'vitest';
import { decodeRpcStatus } from '../../../test/google-rpc.ts';
import { decodeTraceRequest, encodeStatus, MESSAGE_COST, retryInfoJson } from './proto.ts';

describe('google.rpc.Status (OTLP/HTTP error bodies, gRPC status details)', () => {
  it('carries code and message, and no detail without a delay', () => {
    expect(decodeRpcStatus(encodeStatus(3, 'body is not an OTLP ExportTraceServiceRequest: é'))).toEqual({
      code: 3,
      message: 'body is not an OTLP ExportTraceServiceRequest: é',
      detailTypes: [],
      retryDelaysSeconds: [],
    });
  });

  it('adds one RetryInfo in whole seconds, at least 1, as Retry-After spells them', () => {
    for (const [given, sent] of [
      [0.2, 1],
      [1, 1],
      [1.01, 2],
      [59, 59],
      [3600, 3600],
    ] as const) {
      const s = decodeRpcStatus(encodeStatus(8, 'rate limit exceeded', given));
      expect(s).toEqual({ code: 8, message: 'rate limit exceeded', detailTypes: ['type.googleapis.com/google.rpc.RetryInfo'], retryDelaysSeconds: [sent] });
      expect(retryInfoJson(given)).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${sent}s` });
    }
    // A message long enough that lengths take two varint bytes.
    const long = 'x'.repeat(300);
    expect(decodeRpcStatus(encodeStatus(14, long, 1))).toMatchObject({ code: 14, message: long, retryDelaysSeconds: [1] });
  });
});

describe('decoding an export within a memory meter', () => {
  /** `n` empty ResourceSpans: 2 bytes each on the wire, ~140 bytes each decoded. */
  const emptyResources = (n: number) => Buffer.from(new Uint8Array(2 * n).map((_, i) => (i % 2 === 0 ? 0x0a : 0)));

  it('takes the memory of the messages read as it decodes them', () => {
    let taken = 0;
    const request = decodeTraceRequest(emptyResources(100_000), (bytes) => (taken += bytes));
    expect(request.resourceSpans).toHaveLength(100_000);
    expect(taken).toBe(Math.floor(100_000 / 4096) * 4096 * MESSAGE_COST);
  });

  it('stops when the meter refuses: a body of empty messages never decodes past what it was given', () => {
    let taken = 0;
    const refuse = (bytes: number) => {
      if (taken + bytes > 1024 * 1024) throw new Error('over budget');
      taken += bytes;
    };
    expect(() => decodeTraceRequest(emptyResources(1_000_000), refuse)).toThrow('over budget');
    expect(taken).toBeLessThanOrEqual(1024 * 1024);
  });
});
