import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, type WebhookEvent } from './endpoints.ts';
import { creditsEventData, invoiceEventData, outcomeEventData, sampleEventData, subscriptionEventData, webhookBodyProblems } from './payloads.ts';

const body = (event: WebhookEvent, data: object) => ({ event, timestamp: '2026-01-01T00:00:00.000Z', data });
const subscription = { id: 'sub_1', account_id: 'acct_1', rate_plan_id: 'rp_1', status: 'active', cancel_date: null, cancel_reason: null };
const invoice = { id: 'inv_1', account_id: 'acct_1', total: '16.00', amount_due: '16.00', currency: 'USD', number: 'INV-000001', status: 'finalized', subscription_id: 'sub_1' };
const at = new Date('2026-02-01T00:00:00Z');

describe('webhook payload schemas (one per event)', () => {
  it.each(WEBHOOK_EVENTS)('the test delivery of %s matches its schema', (event) => {
    expect(webhookBodyProblems(event, body(event, sampleEventData(event)))).toEqual([]);
  });

  it('a test delivery carries every field of the real one, plus test: true', () => {
    const real = subscriptionEventData({ ...subscription, status: 'cancelled', cancel_date: at, cancel_reason: null }, 'active', 'cancelled', at);
    expect(Object.keys(sampleEventData('subscription.cancelled')).sort()).toEqual([...Object.keys(real), 'test'].sort());
    const inv = invoiceEventData(invoice);
    expect(Object.keys(sampleEventData('invoice.created')).sort()).toEqual([...Object.keys(inv), 'test'].sort());
    const outcome = outcomeEventData({ eventId: 'e', agentInstanceId: 'ai', accountId: null, outcomeType: 't', value: '2.5', timestamp: at });
    expect(Object.keys(sampleEventData('outcome.completed')).sort()).toEqual([...Object.keys(outcome), 'test'].sort());
  });

  it('subscription.cancelled always has its cancel_date; each subscription event has its own changes', () => {
    const cancelled = subscriptionEventData({ ...subscription, status: 'cancelled', cancel_date: at, cancel_reason: 'moving on' }, 'active', 'cancelled', at);
    expect(webhookBodyProblems('subscription.cancelled', body('subscription.cancelled', cancelled))).toEqual([]);
    expect(cancelled).toMatchObject({ cancel_date: '2026-02-01T00:00:00.000Z', reason: 'moving on', change: 'cancelled' });
    expect(webhookBodyProblems('subscription.cancelled', body('subscription.cancelled', { ...cancelled, cancel_date: null })).join()).toMatch(/cancel_date/);
    expect(webhookBodyProblems('subscription.cancelled', body('subscription.cancelled', { ...cancelled, status: 'active' })).join()).toMatch(/status/);

    const created = subscriptionEventData({ ...subscription, status: 'draft' }, null, 'created', at);
    expect(webhookBodyProblems('subscription.created', body('subscription.created', created))).toEqual([]);
    expect(webhookBodyProblems('subscription.created', body('subscription.created', { ...created, change: 'activated' })).join()).toMatch(/change/);
    expect(webhookBodyProblems('subscription.created', body('subscription.created', { ...created, previous_status: 'draft' })).join()).toMatch(/previous_status/);

    for (const change of ['activated', 'paused', 'resumed', 'renewed', 'plan_changed']) {
      const updated = subscriptionEventData(subscription, 'draft', change, at);
      expect(webhookBodyProblems('subscription.updated', body('subscription.updated', updated)), change).toEqual([]);
    }
    const updated = subscriptionEventData(subscription, 'draft', 'activated', at);
    expect(webhookBodyProblems('subscription.updated', body('subscription.updated', { ...updated, change: 'cancelled' })).join()).toMatch(/change/);
    // One event's data is not another's.
    expect(webhookBodyProblems('subscription.created', body('subscription.created', cancelled))).not.toEqual([]);
  });

  it('invoice.paid and payment.successful are paid invoices; invoice.created a draft or finalized one', () => {
    const paid = invoiceEventData({ ...invoice, status: 'paid' });
    for (const event of ['invoice.paid', 'payment.successful'] as const) {
      expect(webhookBodyProblems(event, body(event, paid))).toEqual([]);
      expect(webhookBodyProblems(event, body(event, invoiceEventData(invoice))).join()).toMatch(/status/);
    }
    expect(webhookBodyProblems('invoice.created', body('invoice.created', invoiceEventData(invoice)))).toEqual([]);
    expect(webhookBodyProblems('invoice.created', body('invoice.created', invoiceEventData({ ...invoice, status: 'draft', number: null })))).toEqual([]);
    expect(webhookBodyProblems('invoice.created', body('invoice.created', paid)).join()).toMatch(/status/);
  });

  it('amounts and values: a JSON number and the exact decimal string', () => {
    expect(invoiceEventData({ ...invoice, total: '1234567890123456.78' })).toMatchObject({ amount: 1234567890123456.8, total: '1234567890123456.78' });
    const o = outcomeEventData({ eventId: 'e', agentInstanceId: 'ai', accountId: 'a', outcomeType: 't', value: '123456789012.123456789', timestamp: at });
    expect(o).toMatchObject({ event_id: 'e', value: 123456789012.12346, value_exact: '123456789012.123456789' });
    expect(webhookBodyProblems('outcome.completed', body('outcome.completed', o))).toEqual([]);
    expect(webhookBodyProblems('outcome.completed', body('outcome.completed', { ...o, value: '1' })).join()).toMatch(/value/);
  });

  it('credits events: the amount as positive money text in the currency, whatever the entry sign (0 and 3 decimals)', () => {
    const grant = { id: 'cgr_1', account_id: 'acct_1', currency: 'KWD', kind: 'free', effective_at: at, expires_at: new Date('2026-03-01T00:00:00Z') };
    const expired = creditsEventData(grant, { id: 'cle_1', amount: '-1000000000000000', occurred_at: grant.expires_at });
    expect(expired).toMatchObject({ amount: '1000000000000000.000', expires_at: '2026-03-01T00:00:00.000Z', occurred_at: '2026-03-01T00:00:00.000Z' });
    expect(webhookBodyProblems('credits.expired', body('credits.expired', expired))).toEqual([]);
    const granted = creditsEventData({ ...grant, currency: 'JPY', expires_at: null }, { id: 'cle_2', amount: '500', occurred_at: at });
    expect(granted).toMatchObject({ amount: '500', expires_at: null, kind: 'free' });
    expect(webhookBodyProblems('credits.granted', body('credits.granted', granted))).toEqual([]);
    expect(webhookBodyProblems('credits.granted', body('credits.granted', { ...granted, kind: 'gift' })).join()).toMatch(/kind/);
    expect(Object.keys(sampleEventData('credits.granted')).sort()).toEqual([...Object.keys(granted), 'test'].sort());
  });
});
