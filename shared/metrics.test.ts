import { describe, expect, it } from 'vitest';
import { HotCounter, HotHistogram, Registry } from './metrics.ts';

describe('hot-path metrics', () => {
  it('expose counters and cumulative histograms in the Prometheus text format', async () => {
    const reg = new Registry();
    const c = new HotCounter('t_requests_total', 'requests', ['route', 'status'], [reg]);
    const h = new HotHistogram('t_seconds', 'time', ['route'], [0.1, 1], [reg]);
    c.inc(['/a', '200']);
    c.inc(['/a', '200'], 2);
    c.child(['/a', '503']).value += 1;
    const child = h.child(['/a']);
    for (const v of [0.05, 0.5, 0.7, 3]) child.observe(v);
    const text = await reg.metrics();
    expect(text).toContain('# TYPE t_requests_total counter');
    expect(text).toContain('t_requests_total{route="/a",status="200"} 3');
    expect(text).toContain('t_requests_total{route="/a",status="503"} 1');
    expect(text).toContain('# TYPE t_seconds histogram');
    expect(text).toContain('t_seconds_bucket{route="/a",le="0.1"} 1');
    expect(text).toContain('t_seconds_bucket{route="/a",le="1"} 3');
    expect(text).toContain('t_seconds_bucket{route="/a",le="+Inf"} 4');
    expect(text).toContain('t_seconds_sum{route="/a"} 4.25');
    expect(text).toContain('t_seconds_count{route="/a"} 4');
  });
});
