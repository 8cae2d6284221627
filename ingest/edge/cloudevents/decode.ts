import { AppError } from '../../../shared/errors.ts';
import { MAX_EVENTS_PER_REQUEST } from '../../../shared/events/limits.ts';
import type { BodyReservation } from '../../../shared/http/body-budget.ts';
import { parseMemory } from '../../../shared/http/encoding.ts';
import { jsonMayHoldUnsafeText } from '../../../shared/http/safe-text.ts';
import { scanNumberTexts, type JsonFrame } from '../pipeline/exact-values.ts';

/** A body of CloudEvents in JSON: the events, and what the mapping needs of the JSON text. */
export interface DecodedCloudEvents {
  /** True for `application/cloudevents+json`, or a JSON object sent as `application/json`. */
  single: boolean;
  events: unknown[];
  /** The number text of each event's `data.value`, by index (outcome values are kept exact). */
  valueTexts: (string | undefined)[];
  /** False when no string of the body can hold a NUL or a lone surrogate (no event needs the walk). */
  mayHoldUnsafeText: boolean;
}

/** The media types of CloudEvents' JSON format (structured mode) that POST /api/v1/events reads. */
const CLOUDEVENTS_MEDIA_TYPES = ['application/cloudevents+json', 'application/cloudevents-batch+json', 'application/json'] as const;

/**
 * Decodes a POST /api/v1/events body by Content-Type, as OpenMeter does:
 * `application/cloudevents+json` holds one event object, `application/cloudevents-batch+json`
 * an array of events, and `application/json` either. Any other type is a 415.
 */
export function decodeCloudEvents(body: Buffer, contentType: string | undefined, memory?: BodyReservation): DecodedCloudEvents {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(CLOUDEVENTS_MEDIA_TYPES as readonly string[]).includes(type)) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type ${type || '(none)'} is not supported; use application/cloudevents+json (one event), application/cloudevents-batch+json (an array of events) or application/json (either)`,
    );
  }
  if (body.length === 0) throw new AppError('invalid_body', 'request body is empty; send a CloudEvent or an array of CloudEvents');
  // What the body's objects and arrays will take, from the request's share of the body budget (503, 413).
  memory?.takeMemory(parseMemory(body, 'json'));
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  const single = !Array.isArray(parsed);
  if (type === 'application/cloudevents+json' && !single) {
    throw new AppError('invalid_body', 'an application/cloudevents+json body is one event object; send an array as application/cloudevents-batch+json');
  }
  if (type === 'application/cloudevents-batch+json' && single) {
    throw new AppError('invalid_body', 'an application/cloudevents-batch+json body is a JSON array of events; send one event as application/cloudevents+json');
  }
  if (single && (parsed === null || typeof parsed !== 'object')) throw new AppError('invalid_body', 'request body must be a CloudEvent object or an array of them');
  const events = single ? [parsed] : (parsed as unknown[]);
  if (events.length === 0) throw new AppError('invalid_body', 'the batch holds no events');
  if (events.length > MAX_EVENTS_PER_REQUEST) {
    throw new AppError('too_many_events', `a request may carry at most ${MAX_EVENTS_PER_REQUEST} events; this one has ${events.length}`);
  }
  return { single, events, valueTexts: text.includes('"value"') ? dataValueTexts(text) : [], mayHoldUnsafeText: jsonMayHoldUnsafeText(text) };
}

type Role = 'batch' | 'event' | 'data' | 'other';

/**
 * The number text of `data.value` of each event of a JSON text (one event object, or an
 * array of them), by index: JSON.parse turns 123456789.123456789 into a double, and
 * Node 20's JSON.parse cannot show a number's source text (the same scan as
 * ingest/edge/pipeline/exact-values.ts's for the top-level `value` of Tally's own events).
 * Assumes valid JSON.
 */
export function dataValueTexts(text: string): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  scanNumberTexts<Role>(text, 'value', cloudEventRole, (frame, number) => {
    if (frame.role === 'data') out[frame.index] = number;
  });
  return out;
}

/** A top-level array is the batch; its elements, or the top-level object, are events; an event's `data` object is its data. */
function cloudEventRole(object: boolean, parent: JsonFrame<Role> | undefined): Role {
  if (!object) return parent ? 'other' : 'batch';
  return !parent || parent.role === 'batch' ? 'event' : parent.role === 'event' && parent.key === 'data' ? 'data' : 'other';
}
