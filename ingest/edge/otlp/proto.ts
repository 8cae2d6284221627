/**
 * A minimal protobuf reader and writer for the OTLP trace messages this service needs
 * (opentelemetry/proto/collector/trace/v1 and trace/v1, common/v1, resource/v1). Only
 * the fields Tally reads are decoded; unknown fields are skipped, as protobuf requires.
 * No dependency: the OTLP packages on npm only encode requests.
 */
import { retryDelaySeconds } from '../../../shared/errors.ts';
import type { OtlpAnyValue, OtlpAttributes, OtlpResourceSpans, OtlpSpan, OtlpTraceRequest } from './model.ts';

export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

/**
 * The most memory one message read takes once decoded (its object, its reader, its slot):
 * 138 bytes measured for an empty ResourceSpans, of 2 bytes on the wire (a body of nothing
 * else decodes to ~70 times its bytes, far beyond PARSE_COST's share).
 */
export const MESSAGE_COST = 160;
/** Messages read between two takes of their memory. */
const METER_STEP = 4096;

/** Takes the memory of the messages read as decoding goes (throws, e.g. a 503 or 413, to stop it). */
export type DecodeMeter = (bytes: number) => void;

class Meter {
  count = 0;
  constructor(readonly take: DecodeMeter) {}
}

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
    readonly meter?: Meter,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /** A varint that fits in a JS number (tags, lengths). */
  uint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.end) throw new ProtobufError('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new ProtobufError('varint too large');
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) throw new ProtobufError('truncated fixed64');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtobufError('truncated double');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  /** A length-delimited field: a sub-reader over its bytes. */
  sub(): Reader {
    const len = this.uint();
    if (this.pos + len > this.end) throw new ProtobufError('length-delimited field runs past its message');
    const r = new Reader(this.buf, this.pos, this.pos + len, this.meter);
    this.pos += len;
    if (this.meter !== undefined && ++this.meter.count % METER_STEP === 0) this.meter.take(METER_STEP * MESSAGE_COST);
    return r;
  }

  bytes(): Uint8Array {
    const r = this.sub();
    return this.buf.subarray(r.pos, r.end);
  }

  string(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.sub();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new ProtobufError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new ProtobufError('truncated field');
  }

  /** Calls `field` for each field of the message; `field` returns false to skip it. */
  each(field: (no: number, wireType: number) => boolean): void {
    while (!this.done) {
      const tag = this.uint();
      const no = Math.floor(tag / 8);
      const wt = tag & 7;
      if (!field(no, wt)) this.skip(wt);
    }
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const nanosToMs = (n: bigint) => Number(n / 1_000_000n);

/**
 * Decodes an ExportTraceServiceRequest. Throws {@link ProtobufError} when malformed.
 * `meter` takes the memory of the messages read ({@link MESSAGE_COST} each, every
 * {@link METER_STEP}) as decoding goes, and stops it by throwing.
 */
export function decodeTraceRequest(buf: Uint8Array, meter?: DecodeMeter): OtlpTraceRequest {
  const resourceSpans: OtlpResourceSpans[] = [];
  const r = new Reader(buf, 0, buf.length, meter && new Meter(meter));
  r.each((no, wt) => {
    if (no !== 1 || wt !== 2) return false;
    resourceSpans.push(resourceSpansOf(r.sub()));
    return true;
  });
  return { resourceSpans };
}

function resourceSpansOf(r: Reader): OtlpResourceSpans {
  const out: OtlpResourceSpans = { resource: {}, spans: [] };
  r.each((no, wt) => {
    if (wt !== 2) return false;
    if (no === 1) {
      const res = r.sub();
      res.each((n, w) => {
        if (n !== 1 || w !== 2) return false;
        keyValueInto(res.sub(), out.resource);
        return true;
      });
      return true;
    }
    if (no === 2) {
      scopeSpansInto(r.sub(), out.spans);
      return true;
    }
    return false;
  });
  return out;
}

function scopeSpansInto(r: Reader, spans: OtlpSpan[]): void {
  let scope = '';
  const mine: OtlpSpan[] = [];
  r.each((no, wt) => {
    if (wt !== 2) return false;
    if (no === 1) {
      const s = r.sub();
      s.each((n, w) => {
        if (n !== 1 || w !== 2) return false;
        scope = s.string();
        return true;
      });
      return true;
    }
    if (no === 2) {
      mine.push(spanOf(r.sub()));
      return true;
    }
    return false;
  });
  for (const s of mine) spans.push({ ...s, scope });
}

function spanOf(r: Reader): OtlpSpan {
  const s: OtlpSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, startTimeMs: 0, endTimeMs: 0, attributes: {}, statusCode: 0, scope: '' };
  r.each((no, wt) => {
    switch (no) {
      case 1:
        if (wt !== 2) return false;
        s.traceId = hex(r.bytes());
        return true;
      case 2:
        if (wt !== 2) return false;
        s.spanId = hex(r.bytes());
        return true;
      case 4:
        if (wt !== 2) return false;
        s.parentSpanId = hex(r.bytes());
        return true;
      case 5:
        if (wt !== 2) return false;
        s.name = r.string();
        return true;
      case 6:
        if (wt !== 0) return false;
        s.kind = r.uint();
        return true;
      case 7:
        if (wt !== 1) return false;
        s.startTimeMs = nanosToMs(r.fixed64());
        return true;
      case 8:
        if (wt !== 1) return false;
        s.endTimeMs = nanosToMs(r.fixed64());
        return true;
      case 9:
        if (wt !== 2) return false;
        keyValueInto(r.sub(), s.attributes);
        return true;
      case 15: {
        if (wt !== 2) return false;
        const st = r.sub();
        st.each((n, w) => {
          if (n !== 3 || w !== 0) return false;
          s.statusCode = st.uint();
          return true;
        });
        return true;
      }
      default:
        return false;
    }
  });
  return s;
}

function keyValueInto(r: Reader, into: OtlpAttributes): void {
  let key = '';
  let value: OtlpAnyValue = null;
  r.each((no, wt) => {
    if (wt !== 2) return false;
    if (no === 1) key = r.string();
    else if (no === 2) value = anyValueOf(r.sub());
    else return false;
    return true;
  });
  if (key !== '') into[key] = value;
}

function anyValueOf(r: Reader): OtlpAnyValue {
  let v: OtlpAnyValue = null;
  r.each((no, wt) => {
    switch (no) {
      case 1:
        if (wt !== 2) return false;
        v = r.string();
        return true;
      case 2:
        if (wt !== 0) return false;
        v = r.uint() !== 0;
        return true;
      case 3: {
        if (wt !== 0) return false;
        v = int64(BigInt.asIntN(64, r.varint()));
        return true;
      }
      case 4:
        if (wt !== 1) return false;
        v = r.double();
        return true;
      case 5: {
        if (wt !== 2) return false;
        const arr: OtlpAnyValue[] = [];
        const a = r.sub();
        a.each((n, w) => {
          if (n !== 1 || w !== 2) return false;
          arr.push(anyValueOf(a.sub()));
          return true;
        });
        v = arr;
        return true;
      }
      case 6: {
        if (wt !== 2) return false;
        const obj: OtlpAttributes = {};
        const k = r.sub();
        k.each((n, w) => {
          if (n !== 1 || w !== 2) return false;
          keyValueInto(k.sub(), obj);
          return true;
        });
        v = obj;
        return true;
      }
      case 7:
        if (wt !== 2) return false;
        v = Buffer.from(r.bytes()).toString('base64');
        return true;
      default:
        return false;
    }
  });
  return v;
}

/** An int64 as a number when exact, else as its decimal text. */
export function int64(n: bigint): number | string {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

function writeVarint(out: number[], n: bigint): void {
  let v = BigInt.asUintN(64, n);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** A length-delimited field: an embedded message's bytes. */
function writeMessage(out: number[], fieldNo: number, body: ArrayLike<number>): void {
  writeVarint(out, BigInt(fieldNo * 8 + 2));
  writeVarint(out, BigInt(body.length));
  for (let i = 0; i < body.length; i++) out.push(body[i]!);
}

function writeString(out: number[], fieldNo: number, s: string): void {
  writeMessage(out, fieldNo, Buffer.from(s, 'utf8'));
}

/**
 * ExportTraceServiceResponse: `partial_success` (field 1) with `rejected_spans` (1, int64)
 * and `error_message` (2); empty when everything was accepted.
 */
export function encodeTraceResponse(rejectedSpans: number, errorMessage: string): Uint8Array {
  if (rejectedSpans === 0 && errorMessage === '') return new Uint8Array(0);
  const inner: number[] = [];
  if (rejectedSpans > 0) {
    writeVarint(inner, 8n);
    writeVarint(inner, BigInt(rejectedSpans));
  }
  if (errorMessage !== '') writeString(inner, 2, errorMessage);
  const out: number[] = [];
  writeMessage(out, 1, inner);
  return Uint8Array.from(out);
}

/** RetryInfo's type in a google.protobuf.Any. */
const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * google.rpc.Status `{code (1), message (2), details (3)}`: the OTLP/HTTP body of a failed
 * request, and a failed gRPC call's `grpc-status-details-bin`. Given `retryAfterSeconds`,
 * its one detail is a google.rpc.RetryInfo `{retry_delay (1): Duration {seconds (1)}}` in
 * an Any: OTLP exporters retry RESOURCE_EXHAUSTED only when the answer carries one (the
 * OTLP specification's "Failures"; the Go SDK and the Collector drop the data otherwise).
 */
export function encodeStatus(grpcCode: number, message: string, retryAfterSeconds?: number): Uint8Array {
  const out: number[] = [];
  writeVarint(out, 8n);
  writeVarint(out, BigInt(grpcCode));
  writeString(out, 2, message);
  if (retryAfterSeconds !== undefined) {
    const duration: number[] = [];
    writeVarint(duration, 8n);
    writeVarint(duration, BigInt(retryDelaySeconds(retryAfterSeconds)));
    const retryInfo: number[] = [];
    writeMessage(retryInfo, 1, duration);
    const any: number[] = [];
    writeString(any, 1, RETRY_INFO_TYPE);
    writeMessage(any, 2, retryInfo);
    writeMessage(out, 3, any);
  }
  return Uint8Array.from(out);
}

/** The same RetryInfo in the proto3 JSON form of a Status's `details` (OTLP/HTTP with JSON). */
export function retryInfoJson(retryAfterSeconds: number): { '@type': string; retryDelay: string } {
  return { '@type': RETRY_INFO_TYPE, retryDelay: `${retryDelaySeconds(retryAfterSeconds)}s` };
}
