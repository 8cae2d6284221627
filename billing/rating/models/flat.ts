/**
 * flat: a fixed fee per billing period (charge type recurring by default).
 *
 * Input, rating and overrides as in fee.ts: `amount` (aliases `price`, `unit_price`,
 * `list_price`, or a single tier's `price`); a charge's `pricing.unit_price` replaces it.
 * Charge type recurring or usage: amount per period x the window's proration fraction.
 * Charge type one_time: the amount once, never prorated; no line when `already_charged`.
 */
import { feeModel } from './fee.ts';

export const FLAT = feeModel({
  kind: 'flat',
  spellings: ['flat', 'flat_fee', 'flatfee', 'flat_rate', 'fixed', 'fixed_fee'],
  defaultChargeType: 'recurring',
  oneTime: 'allowed',
});
