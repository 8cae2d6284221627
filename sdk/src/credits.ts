import { randomUUID } from 'node:crypto';
import { parseRetryAfter, retryDelay } from './backoff.ts';
import { TallyApiError } from './errors.ts';

/** Money: a decimal string keeps every digit ("100.00", "1000000000000000.001"); a number is taken as JSON sends it. */
export type Money = string | number;

/** Which charges, products or units of measure a grant covers (none: everything). */
export interface CreditScope {
  charge_ids?: string[];
  product_ids?: string[];
  units?: string[];
}

export interface GrantInput {
  account_id: string;
  /** ISO 4217, the account's currency. */
  currency: string;
  kind: 'paid' | 'free';
  amount: Money;
  /** Paid grants: what the purchase invoice bills (default: `amount`). */
  price?: Money;
  /** 1 burns first, 100 last. */
  priority?: number;
  effective_at?: string | Date;
  expires_at?: string | Date | null;
  scope?: CreditScope | null;
  metadata?: Record<string, string | number | boolean | null>;
  usable?: 'immediately' | 'on_payment';
}

/** A grant as the service answers it (money as decimal strings). */
export interface CreditGrant {
  id: string;
  account_id: string;
  currency: string;
  kind: 'paid' | 'free';
  amount: string;
  remaining: string;
  held: string;
  status: string;
  priority: number;
  [field: string]: unknown;
}

/** A ledger entry: `amount` is signed (grant/release/overpayment +, burn/expiry/void/refund −, adjustment either). */
export interface CreditEntry {
  id: string;
  account_id: string;
  currency: string;
  grant_id: string;
  type: 'grant' | 'burn' | 'release' | 'expiry' | 'void' | 'adjustment' | 'overpayment' | 'refund';
  amount: string;
  invoice_id: string | null;
  reason: string | null;
  occurred_at: string;
  [field: string]: unknown;
}

export interface CurrencyBalance {
  currency: string;
  granted: string;
  burned: string;
  held: string;
  /** What the open periods' usage so far is rated at; null for a balance at an explicit `at`. */
  pending: string | null;
  available: string;
  [field: string]: unknown;
}

export interface CreditBalance {
  account_id: string;
  at: string;
  balances: CurrencyBalance[];
}

/** What an agent secret may read: its account's available credit per currency. */
export interface AgentCreditBalance {
  agent_instance_id: string;
  account_id: string | null;
  at: string;
  balances: { currency: string; available: string }[];
}

export interface CreditSetting {
  account_id: string;
  currency: string;
  low_balance_threshold: string | null;
}

export interface TopupInput {
  account_id: string;
  currency: string;
  type: 'recurring' | 'threshold';
  kind?: 'paid' | 'free';
  amount?: Money;
  price?: Money;
  target_balance?: Money;
  threshold?: Money;
  interval?: 'week' | 'month';
  starts_at?: string | Date;
  priority?: number;
  usable?: 'immediately' | 'on_payment';
  expires_after_days?: number;
  metadata?: Record<string, string | number | boolean | null>;
}

export interface CreditTopup {
  id: string;
  account_id: string;
  currency: string;
  type: 'recurring' | 'threshold';
  kind: 'paid' | 'free';
  status: string;
  [field: string]: unknown;
}

/** A page of a list: `total` rows match; `limit`/`offset` as asked (default 50/0). */
export type Page<K extends string, T> = { [key in K]: T[] } & { total: number; limit: number; offset: number };
export interface PageQuery {
  limit?: number;
  offset?: number;
}
export interface EntryQuery extends PageQuery {
  account_id?: string;
  grant_id?: string;
  invoice_id?: string;
  type?: CreditEntry['type'];
  /** On `occurred_at`, inclusive start. */
  from?: string | Date;
  to?: string | Date;
}

/** How the credits calls reach the service (set up by {@link Tally}). */
export interface CreditsTransport {
  /** The service's `/v1` address. */
  v1: string;
  apiKey?: string;
  agentKey?: string;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

interface Request {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent with the agent secret (X-Agent-Secret) instead of the API key. */
  asAgent?: boolean;
  /** Safe to send again after a network error, 429 or 5xx (reads; a grant with its Idempotency-Key). */
  retry: boolean;
}

/**
 * Prepaid credits (docs/credits.md, Credits) through the Family A API: `tally.credits`. Needs an API
 * key that may read (lists, balances) and write (grants, adjustments, settings, top-ups);
 * `agentBalance()` needs the agent secret (`agentKey`). Every answer other than 2xx throws a
 * {@link TallyApiError}. Reads and grants (sent with an Idempotency-Key, one generated when
 * none is given) are retried like event batches; other changes are sent once.
 */
export class TallyCredits {
  readonly #t: CreditsTransport;

  constructor(transport: CreditsTransport) {
    this.#t = transport;
  }

  /** Grants credits; a retry with the same `idempotencyKey` grants once (the first grant is answered). */
  grant(input: GrantInput, options: { idempotencyKey?: string } = {}): Promise<CreditGrant> {
    const key = options.idempotencyKey ?? randomUUID();
    return this.#call({ method: 'POST', path: '/credits/grants', body: input, headers: { 'idempotency-key': key }, retry: true });
  }

  listGrants(query: PageQuery & { account_id?: string; currency?: string } = {}): Promise<Page<'grants', CreditGrant>> {
    return this.#call({ method: 'GET', path: '/credits/grants', query, retry: true });
  }

  getGrant(grantId: string): Promise<CreditGrant> {
    return this.#call({ method: 'GET', path: `/credits/grants/${seg(grantId)}`, retry: true });
  }

  /** Voids what is left of a grant (a `void` entry); a grant already voided: 409. */
  voidGrant(grantId: string, reason?: string): Promise<CreditGrant> {
    return this.#call({ method: 'POST', path: `/credits/grants/${seg(grantId)}/void`, body: reason === undefined ? {} : { reason }, retry: false });
  }

  /** An account's balance per currency: live (pending usage counted) now, or the ledger's at `at`. */
  balance(accountId: string, options: { at?: string | Date } = {}): Promise<CreditBalance> {
    return this.#call({ method: 'GET', path: `/accounts/${seg(accountId)}/credits/balance`, query: { at: options.at }, retry: true });
  }

  /** Ledger entries in the order written, paged and filtered. */
  listEntries(query: EntryQuery = {}): Promise<Page<'entries', CreditEntry>> {
    return this.#call({ method: 'GET', path: '/credits/entries', query, retry: true });
  }

  /** A manual adjustment (+/−) of a grant with its reason: an `adjustment` entry. */
  adjust(input: { grant_id: string; amount: Money; reason: string }): Promise<CreditEntry> {
    return this.#call({ method: 'POST', path: '/credits/adjustments', body: input, retry: false });
  }

  /** Pays back paid account credit: a `refund` entry (−). */
  refund(input: { grant_id: string; amount: Money; reason: string }): Promise<CreditEntry> {
    return this.#call({ method: 'POST', path: '/credits/refunds', body: input, retry: false });
  }

  /** Sets (or, with null, removes) the account's low-balance threshold in a currency (`credits.balance_low`). */
  setLowBalanceThreshold(accountId: string, currency: string, threshold: Money | null): Promise<CreditSetting> {
    return this.#call({ method: 'PUT', path: `/accounts/${seg(accountId)}/credits/settings`, body: { currency, low_balance_threshold: threshold }, retry: false });
  }

  settings(accountId: string): Promise<{ account_id: string; settings: CreditSetting[] }> {
    return this.#call({ method: 'GET', path: `/accounts/${seg(accountId)}/credits/settings`, retry: true });
  }

  /** A recurring or threshold top-up rule. */
  createTopup(input: TopupInput): Promise<CreditTopup> {
    return this.#call({ method: 'POST', path: '/credits/topups', body: input, retry: false });
  }

  listTopups(query: PageQuery & { account_id?: string } = {}): Promise<Page<'topups', CreditTopup>> {
    return this.#call({ method: 'GET', path: '/credits/topups', query, retry: true });
  }

  getTopup(topupId: string): Promise<CreditTopup> {
    return this.#call({ method: 'GET', path: `/credits/topups/${seg(topupId)}`, retry: true });
  }

  /** Stops a top-up rule (what it granted stays). */
  cancelTopup(topupId: string): Promise<CreditTopup> {
    return this.#call({ method: 'POST', path: `/credits/topups/${seg(topupId)}/disable`, retry: false });
  }

  /** The calling agent's account's available credit per currency (the client's `agentKey`). */
  agentBalance(): Promise<AgentCreditBalance> {
    return this.#call({ method: 'GET', path: '/agents/me/credit-balance', asAgent: true, retry: true });
  }

  async #call<T>(r: Request): Promise<T> {
    const url = this.#t.v1 + r.path + queryString(r.query);
    const headers: Record<string, string> = { 'user-agent': this.#t.userAgent, ...r.headers };
    const secret = r.asAgent ? this.#t.agentKey : this.#t.apiKey;
    if (!secret) throw new TallyApiError('missing_credentials', r.asAgent ? 'this call needs the agent secret (`agentKey`)' : 'this call needs an API key (`apiKey`)', 0);
    if (r.asAgent) headers['x-agent-secret'] = secret;
    else headers.authorization = `Bearer ${secret}`;
    const body = r.body === undefined ? undefined : JSON.stringify(r.body, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.#once(r.method, url, headers, body)) as T;
      } catch (e) {
        const err = e instanceof TallyApiError ? e : new TallyApiError('network_error', (e as Error).name === 'AbortError' ? 'timeout' : String((e as Error).message), 0, [], true);
        if (!r.retry || !err.retryable || attempt >= this.#t.maxRetries) throw err;
        await new Promise((res) => setTimeout(res, retryDelay(attempt, err.retryAfterMs, { baseMs: this.#t.retryBaseMs, maxMs: this.#t.retryMaxMs })));
      }
    }
  }

  /** One request: the parsed answer of a 2xx; throws a TallyApiError for any other. */
  async #once(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<unknown> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.#t.timeoutMs);
    try {
      const res = await fetch(url, { method, headers, body, signal: ctl.signal });
      const answer = parse(await res.text());
      if (res.ok) return answer;
      const e = (answer as { error?: { code?: string; message?: string; details?: unknown[] } } | undefined)?.error;
      const retryable = res.status === 429 || res.status >= 500;
      throw new TallyApiError(e?.code ?? `http_${res.status}`, e?.message ?? `HTTP ${res.status}`, res.status, e?.details ?? [], retryable, parseRetryAfter(res.headers.get('retry-after')));
    } finally {
      clearTimeout(timer);
    }
  }
}

const seg = (id: string) => encodeURIComponent(id);

function queryString(q: object | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined && v !== null) params.set(k, v instanceof Date ? v.toISOString() : String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
