/**
 * Simulation: rates hypothetical usage against a rate plan's charges with the same
 * engine (and the same workers) as invoices. The period is the plan cycle's current
 * one (or `billing_period`), rated as a whole period: no proration. The plan's minimum
 * commitment applies as on an invoice (a `minimum_commitment` line when the usage rates below it).
 */
import { AppError } from '../../shared/errors.ts';
import { notFound } from '../../shared/db/db-errors.ts';
import { periodContaining, periodFromLabel, type ChargeModelKind, type CanonicalPricing, type RatedCharge, type UnitOfMeasure, type Usage } from '../rating/index.ts';
import type { Invoicing } from './context.ts';

/** Input of {@link simulateCharges}; `usageField` names the body field in errors (usage or usage_data). */
interface SimulateInput {
  ratePlanId: string;
  usage: Usage;
  usageField: 'usage' | 'usage_data';
  billingPeriod?: string;
}

export async function simulateCharges(inv: Invoicing, environmentId: string, input: SimulateInput) {
  const plan = await inv.db.selectFrom('rate_plans').selectAll().where('environment_id', '=', environmentId).where('id', '=', input.ratePlanId).executeTakeFirst();
  if (!plan) {
    const e = notFound('rate plan', input.ratePlanId);
    throw new AppError('validation_failed', e.message, { details: [{ path: 'rate_plan_id', message: 'rate_plan_id does not exist' }] });
  }
  const period = input.billingPeriod ? periodFromLabel(input.billingPeriod, plan.billing_cycle_code) : periodContaining(inv.now(), plan.billing_cycle_code);
  const rows = await inv.db.selectFrom('charges').selectAll().where('rate_plan_id', '=', plan.id).orderBy('created_at').orderBy('id').execute();
  const charges: RatedCharge[] = rows.map((r) => {
    const pricing = r.resolved_pricing as unknown as CanonicalPricing;
    return { id: r.id, name: r.name, model: pricing.kind as ChargeModelKind, charge_type: r.charge_type, unit_of_measure: (r.unit_of_measure as UnitOfMeasure | null) ?? null, pricing };
  });
  const outcome = await inv.rater.rate({ currency: plan.currency, period, segments: [{ from: period.start, to: period.end, charges, usage: input.usage, minimum_commitment: plan.minimum_commitment }] });
  if (!outcome.ok) {
    const path = outcome.rejection.path.replace(/^input\.segments\[0\]\.usage/, input.usageField) || input.usageField;
    const message = outcome.rejection.message.replace(/^input\.segments\[0\]\.usage/, input.usageField);
    throw new AppError('validation_failed', message, { details: [{ path, message }] });
  }
  const r = outcome.result;
  return {
    rate_plan_id: plan.id,
    currency: r.currency,
    billing_cycle: plan.billing_cycle_code,
    billing_period: period.start.slice(0, 7),
    period_start: period.start,
    period_end: period.end,
    charges: r.lines,
    subtotal: r.subtotal,
    discount_total: r.discount_total,
    minimum_commitment: r.minimum_commitment?.minimum_commitment ?? null,
    total: r.total,
    total_charge: r.total,
  };
}
