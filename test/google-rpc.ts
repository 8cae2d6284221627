/**
 * google.rpc.Status and RetryInfo (googleapis' google/rpc/status.proto and
 * error_details.proto), decoded by protobufjs rather than Tally's own protobuf code: what
 * a gRPC client finds in a failed call's `grpc-status-details-bin`, or an OTLP/HTTP
 * client in a failed request's protobuf body.
 */
import protobuf from 'protobufjs';

const root = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 } } },
            RetryInfo: { fields: { retry_delay: { type: 'google.protobuf.Duration', id: 1 } } },
          },
        },
      },
    },
  },
});

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/** A google.rpc.Status: its code, message, the type of each detail, and the delay of each RetryInfo among them (seconds). */
export function decodeRpcStatus(bytes: Uint8Array): { code: number; message: string; detailTypes: string[]; retryDelaysSeconds: number[] } {
  const status = root.lookupType('google.rpc.Status').toObject(root.lookupType('google.rpc.Status').decode(bytes), { longs: Number, defaults: true }) as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const retryInfo = root.lookupType('google.rpc.RetryInfo');
  return {
    code: status.code,
    message: status.message,
    detailTypes: status.details.map((d) => d.type_url),
    retryDelaysSeconds: status.details
      .filter((d) => d.type_url === RETRY_INFO)
      .map((d) => (retryInfo.toObject(retryInfo.decode(d.value), { longs: Number, defaults: true }) as { retry_delay: { seconds: number } }).retry_delay.seconds),
  };
}
