import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

/** The process's one metrics registry, served at GET /metrics by every role. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

type Labels<L extends string> = Record<L, string>;
type Series<L extends string, V> = { labels: Labels<L>; value: V };

type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * A metric for the hot path: each label set's series is looked up once and then updated
 * with plain additions (prom-client hashes the label set on every call). Read by the
 * registry like any prom-client metric (`get`, `reset`).
 */
abstract class HotMetric<L extends string, V> {
  abstract readonly type: string;
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, Series<L, V>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registers: Registry[],
  ) {
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series of these label values (in `labelNames` order), made with `initial` the first time. */
  protected seriesOf(values: readonly string[], initial: () => V): Series<L, V> {
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      s = { labels: Object.fromEntries(this.labelNames.map((l, i) => [l, values[i] ?? ''])) as Labels<L>, value: initial() };
      this.series.set(key, s);
    }
    return s;
  }

  protected abstract values(): MetricValue[];

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }

  reset(): void {
    this.series.clear();
  }
}

/** A counter for the hot path. */
export class HotCounter<L extends string> extends HotMetric<L, number> {
  readonly type = 'counter';

  constructor(name: string, help: string, labelNames: readonly L[], registers: Registry[] = [registry]) {
    super(name, help, labelNames, registers);
  }

  /** Adds `n` to the series of these label values. */
  inc(values: readonly string[], n = 1): void {
    this.child(values).value += n;
  }

  /** The series of these label values, to keep and count with `value += n` on the hot path. */
  child(values: readonly string[]): { value: number } {
    return this.seriesOf(values, () => 0);
  }

  protected values(): MetricValue[] {
    return [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
  }
}

interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram for the hot path: an observation is a bucket scan and three additions. */
export class HotHistogram<L extends string> extends HotMetric<L, HistogramValue> {
  readonly type = 'histogram';

  constructor(name: string, help: string, labelNames: readonly L[], private readonly buckets: readonly number[], registers: Registry[] = [registry]) {
    super(name, help, labelNames, registers);
  }

  /** The series of these label values, to keep and observe on the hot path. */
  child(values: readonly string[]): { observe(v: number): void } {
    const h = this.seriesOf(values, () => ({ counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 })).value;
    const buckets = this.buckets;
    return {
      observe(v: number): void {
        for (let i = 0; i < buckets.length; i++) {
          if (v <= buckets[i]!) {
            h.counts[i]!++;
            break;
          }
        }
        h.sum += v;
        h.count++;
      },
    };
  }

  protected values(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const { labels, value: h } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += h.counts[i]!;
        out.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      out.push({ labels: { ...labels, le: '+Inf' }, value: h.count, metricName: `${this.name}_bucket` });
      out.push({ labels, value: h.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: h.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}

const requests = new HotCounter('tally_http_requests_total', 'HTTP requests answered, by route and status', ['route', 'status']);
const duration = new HotHistogram('tally_http_request_duration_seconds', 'Time from request arrival to response', ['route'], [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
]);
/** Per route: its duration series and its request counter per status. */
const routeSeries = new Map<string, { duration: { observe(v: number): void }; byStatus: Map<number, { value: number }> }>();

export const httpMetrics = {
  observe(route: string, status: number, seconds: number): void {
    let r = routeSeries.get(route);
    if (!r) routeSeries.set(route, (r = { duration: duration.child([route]), byStatus: new Map() }));
    let c = r.byStatus.get(status);
    if (!c) r.byStatus.set(status, (c = requests.child([route, String(status)])));
    c.value++;
    r.duration.observe(seconds);
  },
};

export const roleReady = new Gauge({
  name: 'tally_role_ready',
  help: '1 when the role is ready to serve',
  labelNames: ['role'] as const,
  registers: [registry],
});

/** The process's budget of request-body memory (shared/http/body-budget.ts), as `/metrics` reads it. */
let bodyBudget: { readonly limitBytes: number; readonly used: number } | undefined;
export function watchBodyBudget(budget: { readonly limitBytes: number; readonly used: number }): void {
  bodyBudget = budget;
}
new Gauge({
  name: 'tally_body_budget_bytes',
  help: "The process's budget of request-body memory (state=limit) and what requests in flight, and their garbage not yet collected, hold of it (state=used)",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    if (!bodyBudget) return;
    this.set({ state: 'limit' }, bodyBudget.limitBytes);
    this.set({ state: 'used' }, bodyBudget.used);
  },
});

export { Counter, Histogram, Gauge, Registry };
