import * as grpc from '@grpc/grpc-js';
import type { AuthFailureLimiter } from '../../../shared/auth/auth-failures.ts';
import { AppError } from '../../../shared/errors.ts';
import type { BlockList } from 'node:net';
import { BodyBudgetExhausted, SMALL_REQUEST_BYTES, type BodyBudget, type BodyReservation } from '../../../shared/http/body-budget.ts';
import { clientAddress } from '../../../shared/http/client-address.ts';
import { PARSE_COST } from '../../../shared/http/encoding.ts';
import { logger } from '../../../shared/log.ts';
import { decodeTraceRequest, encodeStatus, encodeTraceResponse, ProtobufError } from './proto.ts';
import { exportPrincipal, exportTraces, grpcCode, MAX_TRACE_BODY_BYTES, type OtlpDeps } from './traces-handler.ts';

const log = logger('otlp-grpc');

/** The OTLP/gRPC trace service's one method (opentelemetry/proto/collector/trace/v1/trace_service.proto). */
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Messages stay bytes through grpc-js: the request is decoded by Tally's own protobuf reader (proto.ts). */
const identity = (b: Buffer): Buffer => b;
const TRACE_SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

/** Metadata a receiver reads credentials from, as the HTTP receiver reads headers. */
const CREDENTIAL_KEYS = ['authorization', 'api-key', 'x-agent-secret'] as const;

export interface GrpcReceiver {
  /** The bound port (the configured one, or the one chosen for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The OTLP/gRPC trace receiver (plaintext h2c, as exporters' `insecure` setting sends):
 * each Export call goes through the same export as POST /v1/traces (exportTraces), with
 * credentials from the call's metadata. Answers per OTLP/gRPC: OK with partial_success;
 * UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT (not retried by exporters);
 * UNAVAILABLE when events could not be stored and RESOURCE_EXHAUSTED past a rate limit,
 * both with a RetryInfo in the trailers (retried after its delay). gzip-compressed messages are
 * accepted (grpc-encoding); one message may hold up to {@link MAX_TRACE_BODY_BYTES}.
 */
export async function startGrpcReceiver(
  deps: OtlpDeps,
  opts: { host: string; port: number; authFailures?: AuthFailureLimiter | undefined; trustedProxies?: BlockList | undefined; bodies?: BodyBudget | undefined },
): Promise<GrpcReceiver> {
  const limiter = opts.authFailures;
  const bodies = opts.bodies;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_TRACE_BODY_BYTES,
    'grpc.max_send_message_length': 1024 * 1024,
    interceptors: bodies ? [admitWithinBudget(bodies)] : [],
  });
  server.addService(TRACE_SERVICE, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      // The message (grpc-js hands it over whole, inflated) and what decoding it takes, against the process's body budget (admitWithinBudget).
      const memory = bodies?.reserve(1 + PARSE_COST.binary);
      const size = call.request.byteLength;
      if (memory && !memory.tryTake(size)) {
        done(budgetStatus(memory.refusal(size)));
        return;
      }
      handleExport(deps, call, memory).then(
        (reply) => {
          memory?.release();
          done(null, reply);
        },
        (err: unknown) => {
          memory?.release();
          // Failed authentications per client address, as the HTTP listener counts them:
          // over the limit, RESOURCE_EXHAUSTED with a RetryInfo instead of UNAUTHENTICATED.
          const wait = err instanceof AppError && err.status === 401 ? limiter?.failed(clientAddress(peerAddress(call.getPeer()), forwarding(call.metadata), opts.trustedProxies)) : undefined;
          if (wait !== undefined) done(failedStatus(grpc.status.RESOURCE_EXHAUSTED, `too many failed authentications from this address; retry in ${wait} s`, wait));
          else if (err instanceof BodyBudgetExhausted || (err instanceof AppError && err.code === 'payload_too_large')) done(budgetStatus(err));
          else done(toStatus(err));
        },
      );
    },
  });
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  ).catch((err: Error) => {
    throw new Error(`the OTLP/gRPC receiver could not listen on ${host}:${opts.port} (TALLY_OTLP_GRPC_PORT; "off" disables it): ${err.message}`);
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // Calls in flight finish; a peer that keeps its connection open is cut after 5 s.
        const timer = setTimeout(() => server.forceShutdown(), 5000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

async function handleExport(deps: OtlpDeps, call: grpc.ServerUnaryCall<Buffer, Buffer>, memory: BodyReservation | undefined): Promise<Buffer> {
  const headers: Record<string, string> = {};
  for (const key of CREDENTIAL_KEYS) {
    const v = call.metadata.get(key)[0];
    if (typeof v === 'string' && v !== '') headers[key] = v;
  }
  const shared = await exportPrincipal(deps, headers);
  let request;
  try {
    // The messages' memory is taken as they are decoded (a message of empty ones decodes to ~70 times its bytes).
    request = decodeTraceRequest(call.request, memory && ((bytes) => memory.takeMemory(bytes)));
  } catch (err) {
    if (err instanceof ProtobufError) throw new AppError('invalid_body', `message is not an OTLP ExportTraceServiceRequest: ${err.message}`);
    throw err;
  }
  const result = await exportTraces(deps, headers, request, shared);
  return Buffer.from(encodeTraceResponse(result.rejectedSpans, result.message));
}

/** How long a call may wait for room in the body budget before it is refused. */
const RECEIVE_WAIT_MS = 1000;
const RECEIVE_POLL_MS = 25;

/**
 * TRICKY: grpc-js reads a call's message whole (and inflates it) before any handler sees
 * it, and a message's size is not known before it is read. So a call takes, before its
 * message is read, room for the largest message ({@link MAX_TRACE_BODY_BYTES} and what
 * decoding it takes, at most the budget's share for large requests); when that share is
 * full, one call at a time may take instead half of the share kept for small requests
 * (at most {@link SMALL_REQUEST_BYTES}), so that a flood of large messages does not shut
 * out small exports. A call waits up to {@link RECEIVE_WAIT_MS} for either (its HTTP/2
 * stream stays paused, holding nothing), then is refused RESOURCE_EXHAUSTED with a
 * RetryInfo; once the message is in, that room is given back and the handler takes what
 * the message needs (refused the same way when it does not fit). The price: the one call
 * admitted on the small share may read a message larger than its room (up to
 * MAX_TRACE_BODY_BYTES) before it is refused.
 */
function admitWithinBudget(bodies: BodyBudget): grpc.ServerInterceptor {
  const room = Math.min(MAX_TRACE_BODY_BYTES * (1 + PARSE_COST.binary), bodies.largeLimit);
  const smallRoom = Math.min(SMALL_REQUEST_BYTES, Math.floor((bodies.limitBytes - bodies.largeLimit) / 2));
  let smallCallIn = false;
  return (_method, call) => {
    const receiving = bodies.reserve();
    let small = false;
    const received = (): void => {
      receiving.cancel();
      if (small) smallCallIn = small = false;
    };
    const admit = (): boolean => {
      if (receiving.tryTake(room)) return true;
      if (smallCallIn || !receiving.tryTake(smallRoom)) return false;
      smallCallIn = small = true;
      return true;
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const deadline = Date.now() + RECEIVE_WAIT_MS;
            const attempt = (): void => {
              if (admit()) return pass(metadata);
              if (Date.now() < deadline) return void setTimeout(attempt, RECEIVE_POLL_MS);
              received();
              const status = budgetStatus(bodies.reserve().refusal(1));
              call.sendStatus({ code: status.code!, details: status.details!, metadata: status.metadata ?? null });
            };
            attempt();
          },
          onReceiveMessage: (message, pass) => {
            received();
            pass(message);
          },
          onCancel: received,
        }),
      sendStatus: (status, next) => {
        received();
        next(status);
      },
    });
  };
}

/** A refusal of the body budget: RESOURCE_EXHAUSTED, with a RetryInfo when retrying can succeed (a 503's), without when the message can never fit. */
function budgetStatus(err: AppError): Partial<grpc.StatusObject> {
  return failedStatus(grpc.status.RESOURCE_EXHAUSTED, err.message, err.retryAfterSeconds);
}

/** The forwarding headers a proxy in front may have added to a call's metadata. */
function forwarding(metadata: grpc.Metadata): Record<string, string | undefined> {
  const first = (k: string): string | undefined => {
    const v = metadata.get(k)[0];
    return typeof v === 'string' ? v : undefined;
  };
  return { 'x-forwarded-for': first('x-forwarded-for'), forwarded: first('forwarded') };
}

/** The address of a grpc-js peer (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`), as the HTTP listener spells it. */
function peerAddress(peer: string): string {
  const rest = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]:\d+$/.exec(rest);
  if (bracketed) return bracketed[1]!;
  const i = rest.lastIndexOf(':');
  return i > 0 && rest.indexOf(':') === i ? rest.slice(0, i) : rest;
}

function toStatus(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof AppError) {
    if (err.status >= 500) log.warn('trace export failed', { err: err.cause ?? err });
    return failedStatus(grpcCode(err.status), err.message, err.retryAfterSeconds);
  }
  log.error('trace export failed', { err });
  return { code: grpc.status.INTERNAL, details: 'internal error' };
}

/**
 * A failed call's status. With a delay (rate limits, outages), its trailers carry the
 * google.rpc.Status with a RetryInfo (`grpc-status-details-bin`): without one, OTLP
 * exporters drop what was answered RESOURCE_EXHAUSTED instead of sending it again.
 */
function failedStatus(code: grpc.status, details: string, retryAfterSeconds: number | undefined): Partial<grpc.StatusObject> {
  if (retryAfterSeconds === undefined) return { code, details };
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(encodeStatus(code, details, retryAfterSeconds)));
  return { code, details, metadata };
}
