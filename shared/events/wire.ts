import { Packr, Unpackr } from 'msgpackr';

/**
 * One normalized event as it travels from ingest to the sink inside a JetStream
 * message (a msgpack array of these). Short keys: this is the hot path.
 */
export interface WireEvent {
  /** 1 action, 2 outcome. */
  k: 1 | 2;
  env: string;
  org: string;
  agent: string;
  /** Account of the agent instance when the event arrived; '' when none. */
  acct: string;
  id: string;
  /** 1: the client's id; 2: assigned by the server. */
  src: 1 | 2;
  /** action_type or outcome_type. */
  type: string;
  /** Event time, ms since epoch. */
  ts: number;
  /** Acknowledgement time, ms since epoch. */
  ing: number;
  uid: string;
  anon: string;
  /** Metadata as JSON text ('{}' when none). */
  meta: string;
  /** Actions: model and token counts (0 when absent). */
  model?: string;
  tin?: number;
  tout?: number;
  ttot?: number;
  /** Outcomes: value as a decimal string. */
  val?: string;
}

/** Version byte first, so the format can change without ambiguity. */
const FORMAT_VERSION = 1;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false });

export function encodeBatch(events: WireEvent[]): Uint8Array {
  return packr.pack([FORMAT_VERSION, events]);
}

export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

export function decodeBatch(data: Uint8Array): WireEvent[] {
  let v: unknown;
  try {
    v = unpackr.unpack(data);
  } catch (err) {
    throw new WireFormatError(`undecodable batch: ${(err as Error).message}`);
  }
  if (!Array.isArray(v) || v[0] !== FORMAT_VERSION || !Array.isArray(v[1])) throw new WireFormatError('unknown batch format');
  return v[1] as WireEvent[];
}
