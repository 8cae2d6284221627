import { callApi, seg, type ApiRequest, type ApiTransport, type Money, type Page, type PageQuery } from './api.ts';

export interface SpendLimitInput {
  scope: 'account' | 'agent_instance' | 'environment';
  /** With `scope: 'account'`. */
  account_id?: string;
  /** With `scope: 'agent_instance'`. */
  agent_instance_id?: string;
  metric: 'spend' | 'available_balance' | 'quantity';
  /** Money metrics: the account's currency (ISO 4217). */
  currency?: string;
  /** `quantity`: `@action`, `@outcome`, `@user`, `tokens`, `input_tokens` or `output_tokens`. */
  unit?: string;
  /** `quantity`: `day`, `week` (UTC, by arrival) or `billing_period` (default). */
  window?: 'day' | 'week' | 'billing_period';
  /** Exact decimal text ("100.00", "10000"); at most the currency's minor units for money. */
  value: Money;
  /** Percentages of `value` that alert (default [50, 80, 100]). */
  thresholds?: number[];
  /** What it does at 100 %: `notify` (default), `flag` or `block`. */
  action?: 'notify' | 'flag' | 'block';
  description?: string | null;
}

/** What a limit may change after it is created. */
export type SpendLimitUpdate = Partial<Pick<SpendLimitInput, 'value' | 'thresholds' | 'action' | 'description'>>;

/** What a limit is, as the service answers it (`value` as a decimal string). */
interface LimitFields {
  scope: SpendLimitInput['scope'];
  account_id: string | null;
  agent_instance_id: string | null;
  metric: SpendLimitInput['metric'];
  currency: string | null;
  unit: string | null;
  /** The window it counts over: a UTC day or week (by arrival), or the billing period. */
  window: 'day' | 'week' | 'billing_period';
  value: string;
  /** Percentages of `value` that alert. */
  thresholds: number[];
  action: 'notify' | 'flag' | 'block';
}

/** A spend limit. */
export interface SpendLimit extends LimitFields {
  id: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** One spend limit's state (decimal figures as text), as `state()` and the agent's {@link Tally.limits} return it. */
export interface LimitState extends LimitFields {
  limit_id: string;
  /** null until the limit was first evaluated. */
  current: string | null;
  remaining: string | null;
  reached: boolean;
  blocked: boolean;
  /** The start of the window it counts (null until first evaluated). */
  period_start: string | null;
  resets_at: string | null;
  evaluated_at: string | null;
}

/** An alert a limit fired: once per threshold, period and limit value. */
export interface LimitAlert {
  id: string;
  limit_id: string;
  event: 'limit.threshold_reached' | 'limit.exceeded' | 'limit.reset';
  /** Percent of the value; 0 for `limit.reset`. */
  threshold: number;
  period_start: string;
  /** The limit's measure when it fired. */
  value: string;
  limit_value: string;
  fired_at: string;
}

/**
 * Spend limits (README "Stopping runaway spend", docs/spend-limits.md) through the Family A
 * API: `tally.spendLimits`. Needs an API key that may read (lists, states, alerts) and write
 * (create, update, delete); an agent reads its own limits with `tally.limits()`. Every answer
 * other than 2xx throws a {@link TallyApiError}; reads are retried like event batches,
 * changes are sent once.
 */
export class TallySpendLimits {
  readonly #t: ApiTransport;

  constructor(transport: ApiTransport) {
    this.#t = transport;
  }

  create(input: SpendLimitInput): Promise<SpendLimit> {
    return this.#call({ method: 'POST', path: '/limits', body: input, retry: false });
  }

  list(query: PageQuery & { account_id?: string; agent_instance_id?: string } = {}): Promise<Page<'limits', SpendLimit>> {
    return this.#call({ method: 'GET', path: '/limits', query, retry: true });
  }

  get(limitId: string): Promise<SpendLimit> {
    return this.#call({ method: 'GET', path: `/limits/${seg(limitId)}`, retry: true });
  }

  /** Raising a reached `block` limit (or changing its action) unblocks on the next evaluation. */
  update(limitId: string, changes: SpendLimitUpdate): Promise<SpendLimit> {
    return this.#call({ method: 'PATCH', path: `/limits/${seg(limitId)}`, body: changes, retry: false });
  }

  /** It blocks, flags and alerts no more; the alerts it fired stay listed. */
  delete(limitId: string): Promise<{ id: string; deleted: true }> {
    return this.#call({ method: 'DELETE', path: `/limits/${seg(limitId)}`, retry: false });
  }

  /** Where it stands: current value, remaining, reached, blocked, when it resets. */
  state(limitId: string): Promise<LimitState> {
    return this.#call({ method: 'GET', path: `/limits/${seg(limitId)}/state`, retry: true });
  }

  /** The states of an account's limits (and of its environment's). */
  accountStates(accountId: string): Promise<{ account_id: string; limits: LimitState[] }> {
    return this.#call({ method: 'GET', path: `/accounts/${seg(accountId)}/limits`, retry: true });
  }

  /** The alerts limits fired, with when and at what value. */
  listAlerts(query: PageQuery & { limit_id?: string } = {}): Promise<Page<'alerts', LimitAlert>> {
    return this.#call({ method: 'GET', path: '/limit-alerts', query, retry: true });
  }

  #call<T>(r: ApiRequest): Promise<T> {
    return callApi<T>(this.#t, r);
  }
}
