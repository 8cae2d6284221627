import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

/** The process's one metrics registry, served at GET /metrics by every role. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

type Labels<L extends string> = Record<L, string>;
type Series<L extends string, V> = { labels: Labels<L>; value: V };

/**
 * A counter for the hot path: each label set's child is looked up once and then
 * counted with a plain addition (prom-client hashes the label set on every call).
 * Read by the registry like any prom-client metric.
 */
export class HotCounter<L extends string> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, Series<L, number>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registers: Registry[] = [registry],
  ) {
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Adds `n` to the series of these label values (in `labelNames` order). */
  inc(values: readonly string[], n = 1): void {
    this.child(values).value += n;
  }

  /** The series of these label values, to keep and count with `value += n` on the hot path. */
  child(values: readonly string[]): Series<L, number> {
    const key = values.join('\u0000');
    let s = this.#series.get(key);
    if (!s) {
      s = { labels: Object.fromEntries(this.labelNames.map((l, i) => [l, values[i] ?? ''])) as Labels<L>, value: 0 };
      this.#series.set(key, s);
    }
    return s;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: { labels: Labels<L>; value: number }[] } {
    const values = [...this.#series.values()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
  }
}

interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram for the hot path, like {@link HotCounter}: an observation is a bucket scan and three additions. */
export class HotHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, Series<L, HistogramValue>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly buckets: readonly number[],
    registers: Registry[] = [registry],
  ) {
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  observe(values: readonly string[], v: number): void {
    this.child(values).observe(v);
  }

  /** The series of these label values, to keep and observe on the hot path. */
  child(values: readonly string[]): { observe(v: number): void } {
    const key = values.join('\u0000');
    let s = this.#series.get(key);
    if (!s) {
      const labels = Object.fromEntries(this.labelNames.map((l, i) => [l, values[i] ?? ''])) as Labels<L>;
      s = { labels, value: { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 } };
      this.#series.set(key, s);
    }
    const h = s.value;
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

  get(): { name: string; help: string; type: string; aggregator: string; values: { labels: Record<string, string | number>; value: number; metricName: string }[] } {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const { labels, value: h } of this.#series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += h.counts[i]!;
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: h.count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: h.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: h.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
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

export { Counter, Histogram, Gauge, Registry };
