import type { ClickHouseClient } from '@clickhouse/client';
import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { performance } from 'node:perf_hooks';
import { WireFormatError } from '../../shared/events/wire.ts';
import { logger } from '../../shared/log.ts';
import type { NatsNames } from '../../shared/nats/names.ts';
import type { SinkConfig } from './config.ts';
import { sinkMetrics as metrics } from './metrics.ts';
import { isDataError } from './insert-errors.ts';
import { rowsFormatFor, type RowsFormat } from './encoders.ts';
import { recordInserted } from '../../shared/clickhouse/sink-progress.ts';

const log = logger('sink');


export interface SinkHooks {
  /** Runs after the ClickHouse insert and before the acks (fault-injection in tests). */
  afterInsert?: (messages: number) => void | Promise<void>;
}

/**
 * Moves event batches from JetStream into ClickHouse. A durable pull consumer fetches
 * micro-batches; their events are inserted in one insert per table; only then are the
 * messages acknowledged. A failed insert leaves them unacknowledged (redelivered after
 * a delay); a crash between insert and ack redelivers them too, and the identical rows
 * inserted again are counted once (usage queries deduplicate by event identity).
 */
export class Sink {
  #running = false;
  #loop: Promise<void> | undefined;
  #ready = false;
  #messages: { stop(): void } | undefined;
  readonly #rows: RowsFormat;
  /** The stream's creation time: the key of this stream's records in sink_inserted. */
  #streamCreated = '';

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: NatsNames,
    private readonly ch: ClickHouseClient,
    private readonly database: string,
    private readonly cfg: SinkConfig,
    private readonly hooks: SinkHooks = {},
  ) {
    this.#rows = rowsFormatFor(ch, cfg.insertFormat);
  }

  get ready(): boolean {
    return this.#ready;
  }

  async start(): Promise<void> {
    await this.#ensureConsumer();
    this.#running = true;
    this.#ready = true;
    this.#loop = this.#run();
  }

  /** Stops after the batch in hand (its acks are sent or it is left for redelivery). */
  async stop(): Promise<void> {
    this.#running = false;
    this.#ready = false;
    await this.#loop;
    this.#messages?.stop();
  }

  async #ensureConsumer(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const config = {
      durable_name: this.names.sinkConsumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: this.cfg.ackWaitMs * 1_000_000,
      max_ack_pending: 100_000,
      max_waiting: 512,
    };
    this.#streamCreated = (await jsm.streams.info(this.names.stream)).created;
    try {
      await jsm.consumers.info(this.names.stream, this.names.sinkConsumer);
      await jsm.consumers.update(this.names.stream, this.names.sinkConsumer, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    } catch {
      await jsm.consumers.add(this.names.stream, config);
    }
  }

  async #run(): Promise<void> {
    const js = jetstream(this.nc);
    const inflight = new Set<Promise<void>>();
    while (this.#running) {
      try {
        const consumer = await js.consumers.get(this.names.stream, this.names.sinkConsumer);
        // consume() keeps pulls outstanding; the iterator buffers at most what they bring
        // while an insert runs, which bounds the sink's memory (backpressure).
        // TRICKY: pulls are bounded by count, sized so that even messages of the largest
        // size the server allows stay under `pullMaxBytes`. The server must never queue
        // more than its per-client limit (max_pending, 64 MiB) while this loop is busy,
        // or it drops messages as a "slow consumer" and they wait a full ack_wait for
        // redelivery. Not by bytes: nats.js (3.x) then also caps pulls at 100 messages and
        // keeps the unused bytes of a pull completed by count as outstanding, so its next
        // pulls ask for a few KB; the server ends those with 409 "message size exceeds
        // maxbytes", and when that finds the buffer empty the consumer stalls until two
        // heartbeats are missed (30 s; the drain of a backlog of small messages spent most
        // of its time there). Generous heartbeats: a busy event loop must not make the
        // client think the pull died.
        const maxMessages = pullMaxMessages(this.cfg.pullMaxBytes, this.nc.info?.max_payload);
        const messages = await consumer.consume({
          max_messages: maxMessages,
          // The next pull once a quarter of a pull's messages are left, for the other three
          // quarters (nats.js's default, three quarters left, sends a pull every few messages:
          // each a socket write, and writes to the local server cost the sink more than its rows).
          threshold_messages: Math.max(1, Math.floor(maxMessages / 4)),
          expires: 30_000,
          idle_heartbeat: 15_000,
        });
        this.#messages = messages;
        void (async () => {
          // Pull-consumer trouble is worth seeing: missed heartbeats, resets, discarded pulls.
          for await (const st of messages.status()) {
            const routine = st.type === 'next' || st.type === 'debug' || st.type === 'discard' || st.type === 'exceeded_limits' || st.type === 'heartbeat';
            (routine ? log.debug : log.warn)('sink consumer status', { status: st.type, detail: JSON.stringify(st).slice(0, 300) });
          }
        })().catch(() => {});
        const it = messages[Symbol.asyncIterator]();
        let next = it.next();
        // Asked with a short timeout: while the cluster elects the consumer's leader the
        // question goes unanswered, and is asked again half a second later (StallWatch).
        const asker = await jetstreamManager(this.nc, { timeout: 1000, checkAPI: false });
        const stall = new StallWatch(this.cfg.stallMs, async () => (await asker.consumers.info(this.names.stream, this.names.sinkConsumer)).num_pending);
        while (this.#running) {
          // A batch closes at `fetchMessages` messages, `batchMaxBytes` of them, or when
          // its first message has waited `batchLingerMs` (one timer per batch).
          const batch: JsMsg[] = [];
          let bytes = 0;
          let linger: Promise<undefined> | undefined;
          for (;;) {
            // Idle: wakes every half second to watch for a lost pull (StallWatch).
            const r = await Promise.race([next, linger ?? sleep(500)]);
            if (r === undefined) {
              if (batch.length > 0 || !this.#running) break;
              if (await stall.stalled()) {
                messages.stop();
                throw new Error(`no message for ${this.cfg.stallMs} ms while the consumer has messages waiting (a lost pull; e.g. its leader moved)`);
              }
              continue;
            }
            if (r.done) throw new Error('consumer iterator ended');
            stall.delivered();
            next = it.next();
            linger ??= sleep(this.cfg.batchLingerMs);
            batch.push(r.value);
            bytes += r.value.data.length;
            if (batch.length >= this.cfg.fetchMessages || bytes >= this.cfg.batchMaxBytes) break;
          }
          if (batch.length === 0) continue;
          metrics.pending.set(messages.getPending());
          // Up to `maxInflightBatches` at once: while ClickHouse inserts one batch (on its
          // own threads), the next is decoded and serialized here. Each batch acks only
          // its own messages, after its own insert.
          if (inflight.size >= this.cfg.maxInflightBatches) await Promise.race(inflight);
          const p: Promise<void> = this.#processWithRetry(batch).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        await Promise.all(inflight);
        messages.stop();
      } catch (err) {
        await Promise.allSettled(inflight);
        if (!this.#running) break;
        log.warn('sink consumer failed; restarting it', { err });
        await sleep(Math.min(this.cfg.retryDelayMs, 1000));
      }
    }
  }

  /**
   * Inserts a batch, retrying until it succeeds (or the sink stops: then JetStream
   * redelivers). Outages are retried without limit; a batch whose rows ClickHouse refuses
   * `maxAttempts` times is inserted message by message instead ({@link #isolate}).
   */
  async #processWithRetry(batch: JsMsg[]): Promise<void> {
    for (let attempt = 1; this.#running; attempt++) {
      try {
        await this.#process(batch);
        return;
      } catch (err) {
        metrics.failures.inc();
        if (isDataError(err) && attempt >= this.cfg.maxAttempts) {
          try {
            await this.#isolate(batch);
            return;
          } catch (outage) {
            err = outage;
          }
        }
        if (attempt === 1 || attempt % 30 === 0) log.warn('sink insert failed; retrying', { err, messages: batch.length, attempt });
        for (const m of batch) m.working();
        await sleep(this.cfg.retryDelayMs);
      }
    }
  }

  /**
   * Each message of a refused batch on its own: those that insert are acknowledged, those
   * refused alone for their rows go to `sink_dead_letters` with ClickHouse's reason (the
   * payload kept whole, to be replayed once fixed). An outage meanwhile throws: the
   * caller retries the batch (rows inserted twice count once).
   */
  async #isolate(batch: JsMsg[]): Promise<void> {
    for (const m of batch) {
      try {
        await this.#process([m]);
      } catch (err) {
        if (!isDataError(err)) throw err;
        await this.#setAside([{ msg: m, reason: `insert refused: ${String((err as Error).message).split('\n')[0]!.slice(0, 500)}` }]);
      }
    }
  }

  /** Dead-letters messages, records them as handled (the rollup's floor passes them) and ends their delivery. */
  async #setAside(dead: { msg: JsMsg; reason: string }[]): Promise<void> {
    await this.#deadLetter(dead);
    await recordInserted(this.ch, this.database, this.#streamCreated, dead.map((d) => d.msg.seq));
    for (const d of dead) d.msg.term(d.reason);
  }

  async #process(msgs: JsMsg[]): Promise<void> {
    // One insert per table for the whole batch of messages (encoders.ts chooses the format).
    const rowsOut = this.#rows();
    let rows = 0;
    const good: JsMsg[] = [];
    const dead: { msg: JsMsg; reason: string }[] = [];
    const prepared = performance.now();
    for (const [i, m] of msgs.entries()) {
      // TRICKY: decoding a large batch is seconds of JS; yield between messages so the
      // NATS client keeps reading (heartbeats, acks) and never resets the pull under us.
      if (i > 0 && i % 8 === 0) await new Promise((r) => setImmediate(r));
      let n: number;
      try {
        n = rowsOut.add(m.data, m.seq);
      } catch (err) {
        // A message no sink can read or encode is set aside alone; the others go on.
        if (!(err instanceof WireFormatError) && !(err instanceof RangeError) && !(err instanceof SyntaxError)) throw err;
        dead.push({ msg: m, reason: err instanceof WireFormatError ? err.message : `unencodable batch: ${(err as Error).message}` });
        continue;
      }
      rows += n;
      good.push(m);
    }
    const started = performance.now();
    await Promise.all([rowsOut.insert(this.database), dead.length && this.#deadLetter(dead)]);
    const insertMs = performance.now() - started;
    metrics.insertSeconds.observe(insertMs / 1000);
    metrics.inserted.inc(rows);
    log.debug('sink batch inserted', { messages: msgs.length, rows, prepareMs: Math.round(started - prepared), insertMs: Math.round(insertMs) });
    // Recorded before the acks, which a NATS crash can lose (see sink-progress.ts).
    await recordInserted(this.ch, this.database, this.#streamCreated, msgs.map((m) => m.seq));
    await this.hooks.afterInsert?.(msgs.length);
    for (const m of good) m.ack();
    for (const d of dead) d.msg.term(d.reason);
  }

  async #deadLetter(dead: { msg: JsMsg; reason: string }[]): Promise<void> {
    metrics.deadLetters.inc(dead.length);
    log.error('event batches set aside in sink_dead_letters', { count: dead.length, reasons: [...new Set(dead.map((d) => d.reason))].slice(0, 3) });
    await this.ch.insert({
      table: `${this.database}.sink_dead_letters`,
      values: dead.map((d) => ({ received_at: Date.now(), stream_sequence: d.msg.seq, reason: d.reason, payload_base64: Buffer.from(d.msg.data).toString('base64') })),
      format: 'JSONEachRow',
    });
  }
}

/**
 * Tells a lost pull from an idle stream: after `stallMs` without a message, asks the
 * consumer (at most once per `stallMs`) whether messages wait undelivered. A failed
 * question (no consumer leader yet: the cluster is electing one) counts as no, and is
 * asked again `retryMs` (half a second) later, so a pull lost with its leader is started again within
 * about `retryMs` of the election, not `stallMs`.
 */
export class StallWatch {
  #lastMessage: number;
  #nextAsk = -Infinity;

  constructor(
    private readonly stallMs: number,
    private readonly waiting: () => Promise<number>,
    private readonly now: () => number = Date.now,
    private readonly retryMs = Math.min(500, stallMs),
  ) {
    this.#lastMessage = now();
  }

  delivered(): void {
    this.#lastMessage = this.now();
  }

  async stalled(): Promise<boolean> {
    const t = this.now();
    if (t - this.#lastMessage < this.stallMs || t < this.#nextAsk) return false;
    try {
      const waiting = await this.waiting();
      this.#nextAsk = t + this.stallMs;
      return waiting > 0;
    } catch {
      this.#nextAsk = t + this.retryMs;
      return false;
    }
  }
}

/** Messages one pull may bring: as many as fit in `pullMaxBytes` at the server's largest message size. */
export function pullMaxMessages(pullMaxBytes: number, maxPayload = 1024 * 1024): number {
  return Math.max(1, Math.floor(pullMaxBytes / maxPayload));
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((r) => setTimeout(() => r(undefined), ms));
}
