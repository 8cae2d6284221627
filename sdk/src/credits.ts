import { randomUUID } from 'node:crypto';
import { callApi, seg, type ApiRequest, type ApiTransport, type Money, type Page, type PageQuery } from './api.ts';

export type { Money, Page, PageQuery };

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
export type CreditsTransport = ApiTransport;

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

  #call<T>(r: ApiRequest): Promise<T> {
    return callApi<T>(this.#t, r);
  }
}
