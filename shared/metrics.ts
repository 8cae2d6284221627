import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

/** The process's one metrics registry, served at GET /metrics by every role. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const requests = new Counter({
  name: 'tally_http_requests_total',
  help: 'HTTP requests answered, by route and status',
  labelNames: ['route', 'status'] as const,
  registers: [registry],
});
const duration = new Histogram({
  name: 'tally_http_request_duration_seconds',
  help: 'Time from request arrival to response',
  labelNames: ['route'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const httpMetrics = {
  observe(route: string, status: number, seconds: number): void {
    requests.inc({ route, status: String(status) });
    duration.observe({ route }, seconds);
  },
};

export const roleReady = new Gauge({
  name: 'tally_role_ready',
  help: '1 when the role is ready to serve',
  labelNames: ['role'] as const,
  registers: [registry],
});

export { Counter, Histogram, Gauge };
