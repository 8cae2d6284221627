import type { Selectable } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import type { PnlAnalysesTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import type { CostRollupReader } from '../costs/cost-query.ts';
import { computePnl } from './pnl.ts';
import type { Granularity } from '../report-periods.ts';

const log = logger('pnl-analyses');

interface AnalysisRequest {
  analysisType: 'agent' | 'customer' | 'environment';
  agentInstanceId?: string;
  accountId?: string;
  from: Date;
  to: Date;
  granularity: Granularity;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function analysisView(r: Selectable<PnlAnalysesTable>) {
  return {
    id: r.id,
    status: r.status,
    analysis_type: r.analysis_type,
    agent_instance_id: r.agent_instance_id,
    account_id: r.account_id,
    start_date: iso(r.start_date),
    end_date: iso(r.end_date),
    granularity: r.granularity,
    created_at: iso(r.created_at),
    started_at: iso(r.started_at),
    completed_at: iso(r.completed_at),
    result: r.result ?? null,
    error: r.error,
  };
}

/** A pending analysis no process claimed for this long was left by a process that stopped. */
const ORPHANED_PENDING_MS = 60_000;
/** A running analysis this old was left by a process that stopped (analyses take seconds). */
const ORPHANED_RUNNING_MS = 10 * 60_000;

/** Whether an analysis was abandoned by the process that ran it (pure). */
function isOrphaned(r: { status: string; created_at: Date; started_at: Date | null }, now: number): boolean {
  if (r.status === 'pending') return new Date(r.created_at).getTime() < now - ORPHANED_PENDING_MS;
  if (r.status === 'running') return r.started_at !== null && new Date(r.started_at).getTime() < now - ORPHANED_RUNNING_MS;
  return false;
}

/**
 * P&L analyses: POST stores one `pending` and answers at once; the computation runs in
 * the background of the api process (status `running`, then `completed` with `result`,
 * or `failed` with `error`); GET /api/v1/pnl/{id} reads it. The result is the P&L
 * report of the analysis's scope (one agent instance or one customer) over its dates.
 */
export class PnlAnalyses {
  readonly #inflight = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly ch: Pick<ClickHouseClient, 'query'>,
    private readonly chDatabase: string,
    private readonly rollup?: CostRollupReader,
  ) {}

  async create(environmentId: string, req: AnalysisRequest) {
    if (req.analysisType === 'agent') {
      const a = await this.db.selectFrom('agent_instances').select('id').where('environment_id', '=', environmentId).where('id', '=', req.agentInstanceId ?? '').executeTakeFirst();
      if (!a) throw new AppError('not_found', `no agent instance ${req.agentInstanceId}`);
    }
    if (req.analysisType === 'customer') {
      const a = await this.db.selectFrom('accounts').select('id').where('environment_id', '=', environmentId).where('id', '=', req.accountId ?? '').executeTakeFirst();
      if (!a) throw new AppError('not_found', `no account ${req.accountId}`);
    }
    const row = await this.db
      .insertInto('pnl_analyses')
      .values({
        id: newId('pnl'),
        environment_id: environmentId,
        analysis_type: req.analysisType,
        agent_instance_id: req.agentInstanceId ?? null,
        account_id: req.accountId ?? null,
        start_date: req.from,
        end_date: req.to,
        granularity: req.granularity,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    this.#launch(row.id);
    return row;
  }

  /**
   * An analysis. One its process abandoned (it crashed or stopped: still `pending` after
   * {@link ORPHANED_PENDING_MS}, or `running` after {@link ORPHANED_RUNNING_MS}) is
   * started again here, so reading it is enough to see it through.
   */
  async get(environmentId: string, id: string, now = Date.now()) {
    const r = await this.db.selectFrom('pnl_analyses').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
    if (!r) throw new AppError('not_found', `no P&L analysis ${id}`);
    if (isOrphaned(r, now)) this.#launch(r.id, now);
    return r;
  }

  #launch(id: string, now = Date.now()): void {
    const p = this.#run(id, now).finally(() => this.#inflight.delete(p));
    this.#inflight.add(p);
  }

  /** Waits for the analyses running in this process (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#inflight]);
  }

  async #run(id: string, now: number): Promise<void> {
    await new Promise((r) => setImmediate(r));
    // Claimed by one process only: a pending analysis, or one orphaned while running.
    const row = await this.db
      .updateTable('pnl_analyses')
      .set({ status: 'running', started_at: new Date() })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'running'), eb('started_at', '<', new Date(now - ORPHANED_RUNNING_MS))])]))
      .returningAll()
      .executeTakeFirst();
    if (!row) return;
    try {
      const result = await computePnl(this.db, this.ch, this.chDatabase, {
        environmentId: row.environment_id,
        from: new Date(row.start_date),
        to: new Date(row.end_date),
        granularity: row.granularity as Granularity,
        groupBy: row.analysis_type === 'customer' ? 'customer' : row.analysis_type === 'agent' ? 'agent' : 'none',
        costs: 'itemized',
        ...(row.agent_instance_id ? { agentInstanceIds: [row.agent_instance_id] } : {}),
        ...(row.account_id ? { accountIds: [row.account_id] } : {}),
        },
        this.rollup,
      );
      await this.db.updateTable('pnl_analyses').set({ status: 'completed', result: JSON.stringify(result), completed_at: new Date() }).where('id', '=', id).execute();
    } catch (err) {
      log.warn('P&L analysis failed', { err, id });
      await this.db
        .updateTable('pnl_analyses')
        .set({ status: 'failed', error: err instanceof AppError ? err.message : 'the analysis could not be computed', completed_at: new Date() })
        .where('id', '=', id)
        .execute()
        .catch(() => {});
    }
  }
}
