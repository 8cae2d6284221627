import { describe, expect, it } from 'vitest';
import { decodeRpcStatus } from '../../../test/google-rpc.ts';
import { encodeStatus, retryInfoJson } from './proto.ts';

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
