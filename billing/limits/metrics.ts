/** The spend limits' gauges (GET /metrics of a billing process): how many limits are near (80 % or more), at and over their value. */
import { Gauge, registry } from '../../shared/metrics.ts';

const states = new Gauge({
  name: 'tally_spend_limits',
  help: 'Spend limits by state: near (80 % or more of the value, not reached), at (reached, exactly at the value; available-balance limits reached), over (past the value)',
  labelNames: ['state'] as const,
  registers: [registry],
});

export function countLimitStates(n: { near: number; at: number; over: number }): void {
  states.set({ state: 'near' }, n.near);
  states.set({ state: 'at' }, n.at);
  states.set({ state: 'over' }, n.over);
}
