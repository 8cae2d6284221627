import type { ClickHouseClient } from './client.ts';

/**
 * How far ClickHouse holds the events stream: every message of `stream` up to sequence
 * `floor` is inserted. `stream` names the stream the sequence belongs to (its creation
 * time; '' while there is none): a position kept from another stream (restored onto a
 * fresh one, or the stream created again) says nothing about this one.
 */
export interface SinkFloor {
  stream: string;
  floor: number;
}

/**
 * The sink's progress as ClickHouse holds it. After each insert (and before its
 * acknowledgement) the sink records the stream sequences of the batch's messages in
 * `sink_inserted`, keyed by the stream's creation time (a recreated stream restarts its
 * sequences). Readers that need "every message up to N is in ClickHouse" (the cost
 * rollup, the outcome poller) take the consumer's ack floor and extend it over the
 * contiguous run of recorded sequences above it: an acknowledgement lost in a NATS crash
 * then holds nothing back until JetStream redelivers the message (ack_wait, 60 s).
 */
export async function recordInserted(ch: Pick<ClickHouseClient, 'insert'>, database: string, streamCreated: string, seqs: readonly number[]): Promise<void> {
  if (seqs.length === 0) return;
  await ch.insert({
    table: `${database}.sink_inserted`,
    values: seqs.map((s) => ({ stream_created: streamCreated, stream_seq: s })),
    format: 'JSONEachRow',
  });
}

/** The highest sequence s ≤ last such that every sequence in (floor, s] is recorded; floor when none is. */
export async function insertedFloor(ch: Pick<ClickHouseClient, 'query'>, database: string, streamCreated: string, floor: number, last: number): Promise<number> {
  if (last <= floor) return floor;
  const rs = await ch.query({
    query: `/* inserted-floor */ SELECT toString(max(stream_seq)) AS s FROM (
              SELECT stream_seq, row_number() OVER (ORDER BY stream_seq) AS rn
              FROM (SELECT DISTINCT stream_seq FROM ${database}.sink_inserted
                    WHERE stream_created = {created:String} AND stream_seq > {floor:UInt64} AND stream_seq <= {last:UInt64}))
            WHERE stream_seq = {floor:UInt64} + rn`,
    query_params: { created: streamCreated, floor, last },
    format: 'JSONEachRow',
  });
  const s = Number((await rs.json<{ s: string }>())[0]?.s ?? 0);
  return Math.max(floor, s);
}

/** The sequences in (floor, last] recorded as inserted (the live tail drops their part: billing/live/tail.ts). */
export async function insertedAbove(ch: Pick<ClickHouseClient, 'query'>, database: string, streamCreated: string, floor: number, last: number): Promise<number[]> {
  if (last <= floor) return [];
  const rs = await ch.query({
    query: `/* inserted-above */ SELECT DISTINCT toString(stream_seq) AS s FROM ${database}.sink_inserted
            WHERE stream_created = {created:String} AND stream_seq > {floor:UInt64} AND stream_seq <= {last:UInt64}`,
    query_params: { created: streamCreated, floor, last },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ s: string }>()).map((r) => Number(r.s));
}
