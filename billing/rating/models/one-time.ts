/**
 * one_time: a fee charged once. The charge type is always one_time (forced, whatever
 * the charge says).
 *
 * Input and overrides as flat (fee.ts): `amount` (aliases `price`, `unit_price`,
 * `list_price`, or a single tier's `price`); a charge's `pricing.unit_price` replaces it.
 * Rating: the amount once, never prorated; no line when `already_charged`.
 */
import { feeModel } from './fee.ts';

export const ONE_TIME = feeModel({
  kind: 'one_time',
  spellings: ['one_time', 'onetime', 'one_time_fee'],
  defaultChargeType: 'one_time',
  oneTime: 'always',
});
