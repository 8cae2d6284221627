// Generated from Tally's OpenAPI document by `npm run console:types` (console/openapi-types.ts). Do not edit.
export interface paths {
    "/api/v1/account/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One account
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAccountByAccountId"];
        /**
         * Update an account
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiAccountByAccountId"];
        post?: never;
        /**
         * Delete an account (refused while referenced)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiAccountByAccountId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/{account_id}/credit-balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's credit balance per currency (optional at: an instant)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAccountByAccountIdCreditBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/{account_id}/credit-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's credit settings per currency (low_balance_threshold)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAccountByAccountIdCreditSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/{account_id}/credit-settings/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set (or, with null, remove) an account's low_balance_threshold in a currency: credits.balance_low is sent once each time the available balance falls below it
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiAccountByAccountIdCreditSettingsUpdate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/{account_id}/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The states of the spend limits of an account (and of its environment)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAccountByAccountIdLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAccountAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account (name, external_id, description)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiAccountCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/{agent_instance_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One agent instance
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAgentInstanceByAgentInstanceId"];
        /**
         * Update an agent instance (name, description, references, is_active)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiAgentInstanceByAgentInstanceId"];
        post?: never;
        /**
         * Delete an agent instance (refused while a subscription includes it)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiAgentInstanceByAgentInstanceId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/{agent_instance_id}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a new secret; the old one stops working at once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiAgentInstanceByAgentInstanceIdRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agent instances (skip/limit; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAgentInstanceAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an agent instance; the secret is returned once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiAgentInstanceCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/credit-balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling agent instance's account's available credit per currency that may pay for its usage (grants scoped to another subscription, or to charges, products or units its subscriptions' plans do not bill, are left out; X-Agent-Secret only; an instance without an account: no balances)
         * @description Requires: agent secrets (X-Agent-Secret) only.
         */
        get: operations["getApiAgentInstanceCreditBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling agent instance (X-Agent-Secret): its metadata, organization and environment (value-python's initialize)
         * @description Requires: agent secrets (X-Agent-Secret) only.
         */
        get: operations["getApiAgentInstanceInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The spend limits that apply to the calling agent instance, with remaining budget and whether it is blocked (X-Agent-Secret only)
         * @description Requires: agent secrets (X-Agent-Secret) only.
         */
        get: operations["getApiAgentInstanceLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_instance/validate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate an instance secret; returns the instance's metadata (used by the SDK)
         * @description Requires: SDK keys, every API key and agent secrets.
         */
        post: operations["postApiAgentInstanceValidateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_type/{agent_type_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One agent type
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAgentTypeByAgentTypeId"];
        /**
         * Update an agent type
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiAgentTypeByAgentTypeId"];
        post?: never;
        /**
         * Delete an agent type (refused while instances or products reference it)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiAgentTypeByAgentTypeId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_type/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agent types (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiAgentTypeAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent_type/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an agent type (name unique per environment)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiAgentTypeCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api_keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List this environment's keys (skip/limit); never the keys themselves
         * @description Requires: admin API keys.
         */
        get: operations["getApiApiKeys"];
        put?: never;
        /**
         * Create a key (name, permission); the key is returned once
         * @description Requires: admin API keys.
         */
        post: operations["postApiApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api_keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Rename a key or set its rate limit (requests per minute; null: the default)
         * @description Requires: admin API keys.
         */
        put: operations["putApiApiKeysByKeyId"];
        post?: never;
        /**
         * Revoke a key at once
         * @description Requires: admin API keys.
         */
        delete: operations["deleteApiApiKeysByKeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api_keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a key: a new key now, the old one works 24 more hours
         * @description Requires: admin API keys.
         */
        post: operations["postApiApiKeysByKeyIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/charge_models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List charge models (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiChargeModels"];
        put?: never;
        /**
         * Create a charge model (pricing_strategy validated per type)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiChargeModels"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/charge_models/{charge_model_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One charge model
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiChargeModelsByChargeModelId"];
        put?: never;
        post?: never;
        /**
         * Delete a charge model (refused while charges use it)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiChargeModelsByChargeModelId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact/{contact_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One contact
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiContactByContactId"];
        /**
         * Update a contact
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiContactByContactId"];
        post?: never;
        /**
         * Delete a contact (refused while an agent instance references it)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiContactByContactId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List contacts (skip/limit; optional account_id filter)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiContactAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a contact of an account
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiContactCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/adjustments/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Adjust a credit grant by hand (+/-) with a reason: an adjustment ledger entry
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditAdjustmentsCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Credit ledger entries in the order written (skip/limit; filters account_id, grant_id, invoice_id, type, from, to on occurred_at)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiCreditEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit grants with what is left of each (skip/limit; filters account_id, currency)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiCreditGrants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/grants/{grant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One credit grant
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiCreditGrantsByGrantId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/grants/{grant_id}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Void what is left of a credit grant (a void ledger entry)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditGrantsByGrantIdVoid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/grants/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Grant prepaid credits to an account (paid: with a purchase invoice; free). Idempotency-Key header: a retry grants once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditGrantsCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/refunds/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund paid account credit (a paid purchase or an overpayment): `amount` is the money paid back, at most what was paid for what is left of the grant (price × left ÷ amount granted); a refund ledger entry (-) of the credit it takes off, with its reason
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditRefundsCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/topups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit top-up rules (skip/limit; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiCreditTopups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/topups/{topup_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One credit top-up rule
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiCreditTopupsByTopupId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/topups/{topup_id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a credit top-up rule (it grants nothing more)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditTopupsByTopupIdDisable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/credit/topups/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a credit top-up rule: recurring (every week or month, amount) or threshold (when the available balance falls below threshold: amount, or up to target_balance); each trigger grants once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiCreditTopupsCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/embeds/{agent_instance_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Per-day metrics of an agent instance over the last N days (duration=7days): actions, outcomes, cost, revenue, margin
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiEmbedsByAgentInstanceId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenMeter-compatible ingest: one CloudEvent (application/cloudevents+json) or a batch (application/cloudevents-batch+json; application/json either), metered as actions and outcomes (`type` outcome.<name>)
         * @description Requires: SDK keys, agent secrets, read-write and admin API keys.
         */
        post: operations["postApiEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/bill-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List bill runs (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceBillRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/bill-runs/{bill_run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One bill run with its counts, totals per currency and invoice ids
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceBillRunsByBillRunId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/bill-runs/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a bill run: invoices of the last ended period for every subscription billable in it (runs to completion)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceBillRunsCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoice-templates/{template_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Update a template (name, template_data merged, is_active: true makes it the one active template)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiInvoiceInvoiceTemplatesByTemplateId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoice-templates/active": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The environment's active invoice template (404 when none)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceInvoiceTemplatesActive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invoices and credit notes (skip/limit; filters account_id, status, subscription_id, kind, billing_period_from, billing_period_to)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One invoice with its lines and the usage that produced them
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceInvoicesByInvoiceId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}/correct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Correct a finalized, paid or void invoice with new documents: re-rates its period, issues a credit note reversing it (not for void) and a finalized replacement invoice; 409 when nothing changed
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceInvoicesByInvoiceIdCorrect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}/finalize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finalize a draft now (re-rated first); finalized invoices never change
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceInvoicesByInvoiceIdFinalize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}/html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The invoice rendered as HTML with the active template
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiInvoiceInvoicesByInvoiceIdHtml"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record the payment of an invoice (amount must equal the total when given; a draft is re-rated and issued first): draft/finalized -> paid
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceInvoicesByInvoiceIdPay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/invoices/{invoice_id}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Void a draft or finalized invoice
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceInvoicesByInvoiceIdVoid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/templates/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an invoice template (name, template_data {company_name, logo_url}); it becomes the active one unless is_active is false
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiInvoiceTemplatesCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/limit-alert/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Alerts fired by spend limits (limit.threshold_reached, limit.exceeded, limit.reset): when, at what value (skip/limit; filter limit_id: an unknown one is a 404)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiLimitAlertAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/limit/{limit_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One spend limit
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiLimitByLimitId"];
        /**
         * Change a spend limit's value, thresholds, action or description (evaluated again at once: raising it unblocks)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiLimitByLimitId"];
        post?: never;
        /**
         * Delete a spend limit (it blocks, flags and alerts no more; its alerts stay listed)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiLimitByLimitId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/limit/{limit_id}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A spend limit's state: current value, remaining, reached, blocked, when it resets
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiLimitByLimitIdState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/limit/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List spend limits (skip/limit; filters account_id, agent_instance_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiLimitAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/limit/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a spend limit: money spent per billing period (spend), the available credit balance (available_balance), or a quantity of a unit per day, week or billing period; thresholds alert, the action at 100 % is notify, flag or block
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiLimitCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description No credential needed.
         */
        get: operations["getApiOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/outcome_rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Rules deriving outcomes from actions (active ones; include_inactive=true for ended ones)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiOutcomeRules"];
        put?: never;
        /**
         * Create an outcome rule: action_type, optional metadata_match, outcome_type, value or value_field, effective_from
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiOutcomeRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/outcome_rules/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One outcome rule
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiOutcomeRulesByRuleId"];
        /**
         * Change an outcome rule from effective_from (default now)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiOutcomeRulesByRuleId"];
        post?: never;
        /**
         * End an outcome rule now
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiOutcomeRulesByRuleId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pnl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a P&L analysis of an agent instance or customer (status pending; read it with GET /api/v1/pnl/{id})
         * @description Requires: read-only, read-write and admin API keys.
         */
        post: operations["postApiPnl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pnl/{analysis_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A P&L analysis: status (pending, running, completed, failed) and, once completed, its result
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiPnlByAnalysisId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List products (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiProducts"];
        put?: never;
        /**
         * Create a product tied to an agent type (name unique per environment)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiProducts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products/{product_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One product
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiProductsByProductId"];
        /**
         * Update a product
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiProductsByProductId"];
        post?: never;
        /**
         * Delete a product (refused while it has rate plans)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiProductsByProductId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products/{product_id}/rateplans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a product's rate plans (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiProductsByProductIdRateplans"];
        put?: never;
        /**
         * Create a rate plan (name, billing_cycle_code, currency; USD by default)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiProductsByProductIdRateplans"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products/rateplans/{rate_plan_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One rate plan with its charges
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiProductsRateplansByRatePlanId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products/rateplans/{rate_plan_id}/charges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a rate plan's charges (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiProductsRateplansByRatePlanIdCharges"];
        put?: never;
        /**
         * Create a charge (name, charge_model_id, charge_type_code, pricing)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiProductsRateplansByRatePlanIdCharges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/simulation/charges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate the charges of a rate plan for usage_data (same engine as invoices)
         * @description Requires: read-only, read-write and admin API keys.
         */
        post: operations["postApiSimulationCharges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One subscription
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiSubscriptionBySubscriptionId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Activate a draft subscription (it becomes billable)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdActivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel (cancel_date, reason)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/change-plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the rate plan (rate_plan_id, optional effective_date for proration)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdChangePlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The recorded state changes of a subscription, with their effective times (skip/limit)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiSubscriptionBySubscriptionIdEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/invoice-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Preview the invoice of the subscription's current period with the usage so far (not stored)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiSubscriptionBySubscriptionIdInvoicePreview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause an active subscription (optional effective_date)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdPause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Renew an active or paused subscription (a new term; status unchanged)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdRenew"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/{subscription_id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused subscription (optional effective_date)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionBySubscriptionIdResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List subscriptions (skip/limit; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiSubscriptionAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/subscription/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a draft subscription (account_id, rate_plan_id, contract_effective_date)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiSubscriptionCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/taggable_items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Action and outcome types seen in this environment's events: count, last seen, tagged (skip/limit; optional kind)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiTaggableItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tagged_actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tagged actions of this environment (the whole set, by name)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiTaggedActions"];
        /**
         * Replace the set of tagged actions (tagged_actions: [{action_name, description}]; names unique)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiTaggedActions"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tagged_outcomes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tagged outcomes of this environment (the whole set, by name)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiTaggedOutcomes"];
        /**
         * Replace the set of tagged outcomes (tagged_outcomes: [{outcome_name, description}]; names unique)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiTaggedOutcomes"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook_deliveries/{delivery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One delivery: its event body, status and every attempt
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiWebhookDeliveriesByDeliveryId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook_deliveries/{delivery_id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again now (same event id and body); the schedule restarts
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiWebhookDeliveriesByDeliveryIdResend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints (skip/limit); never their secrets
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint (url, events, description, secret); the secret is returned once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook endpoint (without its secret)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiWebhooksByWebhookId"];
        /**
         * Update a webhook endpoint (url, events, description, is_active)
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putApiWebhooksByWebhookId"];
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteApiWebhooksByWebhookId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's deliveries, newest first (skip/limit), each with its attempts
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getApiWebhooksByWebhookIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret (optional secret, else generated); returned once, the old one stops signing at once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postApiWebhooksByWebhookIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console (HTML page; signs in with an API key kept in the tab)
         * @description No credential needed.
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/app.css": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console's style sheet
         * @description No credential needed.
         */
        get: operations["getConsoleAppCss"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/app.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console's script
         * @description No credential needed.
         */
        get: operations["getConsoleAppJs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description No credential needed.
         */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description No credential needed.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness of every role in this process
         * @description No credential needed.
         */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts (limit/offset)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAccounts"];
        put?: never;
        /**
         * Create an account (name, email, billing_address)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postAccounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One account
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAccountsByAccountId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{account_id}/credits/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's credit balance per currency (optional at: an instant)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAccountsByAccountIdCreditsBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{account_id}/credits/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's credit settings per currency (low_balance_threshold)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAccountsByAccountIdCreditsSettings"];
        /**
         * Set (or, with null, remove) an account's low_balance_threshold in a currency: credits.balance_low is sent once each time the available balance falls below it
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putAccountsByAccountIdCreditsSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{account_id}/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The states of the spend limits of an account (and of its environment)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAccountsByAccountIdLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send one action event or a batch (JSON, NDJSON, msgpack)
         * @description Requires: SDK keys, agent secrets, read-write and admin API keys.
         */
        post: operations["postActions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agents (limit default 20, max 100; offset; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAgents"];
        put?: never;
        /**
         * Create an agent (name, type, description); the secret is returned once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postAgents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One agent
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getAgentsByAgentId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/me/credit-balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling agent instance's account's available credit per currency that may pay for its usage (grants scoped to another subscription, or to charges, products or units its subscriptions' plans do not bill, are left out; X-Agent-Secret only; an instance without an account: no balances)
         * @description Requires: agent secrets (X-Agent-Secret) only.
         */
        get: operations["getAgentsMeCreditBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/me/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The spend limits that apply to the calling agent instance, with remaining budget and whether it is blocked (X-Agent-Secret only)
         * @description Requires: agent secrets (X-Agent-Secret) only.
         */
        get: operations["getAgentsMeLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cost_rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Cost rules of this environment (active ones; include_inactive=true for ended ones)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCostRules"];
        put?: never;
        /**
         * Create a cost rule (category, currency, basis, rate or model_rates, optional action_type, unit_field, effective_from)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCostRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cost_rules/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One cost rule with every version (effective_from, effective_to, rates)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCostRulesByRuleId"];
        /**
         * Change a cost rule from effective_from (default now); earlier actions keep their costs
         * @description Requires: read-write and admin API keys.
         */
        put: operations["putCostRulesByRuleId"];
        post?: never;
        /**
         * End a cost rule now; earlier actions keep their costs
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteCostRulesByRuleId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/costs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Cost records per agent, customer, cost type, currency and month (YYYY-MM), and the total per currency
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCosts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/adjustments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Adjust a credit grant by hand (+/-) with a reason: an adjustment ledger entry
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsAdjustments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Credit ledger entries in the order written (limit/offset; filters account_id, grant_id, invoice_id, type, from, to on occurred_at)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCreditsEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit grants with what is left of each (limit/offset; filters account_id, currency)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCreditsGrants"];
        put?: never;
        /**
         * Grant prepaid credits to an account (paid: with a purchase invoice; free). Idempotency-Key header: a retry grants once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsGrants"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/grants/{grant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One credit grant
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCreditsGrantsByGrantId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/grants/{grant_id}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Void what is left of a credit grant (a void ledger entry)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsGrantsByGrantIdVoid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund paid account credit (a paid purchase or an overpayment): `amount` is the money paid back, at most what was paid for what is left of the grant (price × left ÷ amount granted); a refund ledger entry (-) of the credit it takes off, with its reason
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsRefunds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/topups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit top-up rules (limit/offset; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCreditsTopups"];
        put?: never;
        /**
         * Create a credit top-up rule: recurring (every week or month, amount) or threshold (when the available balance falls below threshold: amount, or up to target_balance); each trigger grants once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsTopups"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/topups/{topup_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One credit top-up rule
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getCreditsTopupsByTopupId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/topups/{topup_id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a credit top-up rule (it grants nothing more)
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postCreditsTopupsByTopupIdDisable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invoices and credit notes (limit/offset; filters account_id, status, subscription_id, kind, billing_period_from, billing_period_to)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invoices/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One invoice with its lines and the usage that produced them
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getInvoicesByInvoiceId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invoices/{invoice_id}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record the payment of an invoice (amount must equal the total when given; a draft is re-rated and issued first): draft/finalized -> paid
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postInvoicesByInvoiceIdPay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invoices/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate the invoices of a billing period (YYYY-MM) for one account or all; existing ones are returned, never duplicated
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postInvoicesGenerate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/limit-alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Alerts fired by spend limits (limit.threshold_reached, limit.exceeded, limit.reset): when, at what value (limit/offset; filter limit_id: an unknown one is a 404)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getLimitAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List spend limits (limit/offset; filters account_id, agent_instance_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getLimits"];
        put?: never;
        /**
         * Create a spend limit: money spent per billing period (spend), the available credit balance (available_balance), or a quantity of a unit per day, week or billing period; thresholds alert, the action at 100 % is notify, flag or block
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postLimits"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/limits/{limit_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One spend limit
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getLimitsByLimitId"];
        put?: never;
        post?: never;
        /**
         * Delete a spend limit (it blocks, flags and alerts no more; its alerts stay listed)
         * @description Requires: read-write and admin API keys.
         */
        delete: operations["deleteLimitsByLimitId"];
        options?: never;
        head?: never;
        /**
         * Change a spend limit's value, thresholds, action or description (evaluated again at once: raising it unblocks)
         * @description Requires: read-write and admin API keys.
         */
        patch: operations["patchLimitsByLimitId"];
        trace?: never;
    };
    "/v1/limits/{limit_id}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A spend limit's state: current value, remaining, reached, blocked, when it resets
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getLimitsByLimitIdState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description No credential needed.
         */
        get: operations["getOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/outcomes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send one outcome event or a batch (JSON, NDJSON, msgpack)
         * @description Requires: SDK keys, agent secrets, read-write and admin API keys.
         */
        post: operations["postOutcomes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricing/rate-plans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rate plans (limit/offset)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getPricingRatePlans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricing/rate-plans/{rate_plan_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One rate plan with its charges
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getPricingRatePlansByRatePlanId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricing/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rate hypothetical usage against a rate plan (same engine as invoices)
         * @description Requires: read-only, read-write and admin API keys.
         */
        post: operations["postPricingSimulate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reports/pnl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Revenue, costs (blended or itemized llm/api/infrastructure), margin and margin percent per period and currency
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getReportsPnl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reports/revenue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Invoiced revenue by period (week, month, quarter) and agent, customer, product, rate plan or agent type; totals per currency
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getReportsRevenue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sql": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read-only SQL over this environment (actions, outcomes, cost_rules, outcome_rules, costs_daily, cost_events); see docs/analytics.md
         * @description Requires: admin API keys.
         */
        post: operations["postSql"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List subscriptions (limit/offset; filter account_id)
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getSubscriptions"];
        put?: never;
        /**
         * Create a subscription (account_id, rate_plan_id, agent_instance_ids); active at once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postSubscriptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/subscriptions/{subscription_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One subscription
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getSubscriptionsBySubscriptionId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OTLP/HTTP trace export (protobuf or JSON, optionally gzip): GenAI and tagged spans become actions
         * @description Requires: SDK keys, agent secrets, read-write and admin API keys.
         */
        post: operations["postTraces"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage quantities (actions, outcomes, distinct users, tokens) per agent or account over [start_date, end_date)
         * @description Requires: every key type and agent secrets.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints (limit/offset); never their secrets
         * @description Requires: read-only, read-write and admin API keys.
         */
        get: operations["getWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint (url, events, description, secret); the secret is returned once
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test delivery of the named event to a webhook now; answers with the attempt
         * @description Requires: read-write and admin API keys.
         */
        post: operations["postWebhooksTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "credits.balance_low": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credits.balance_low delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookCreditsBalanceLow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credits.depleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credits.depleted delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookCreditsDepleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credits.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credits.expired delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookCreditsExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credits.granted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credits.granted delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookCreditsGranted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.created delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookInvoiceCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.paid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.paid delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookInvoicePaid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "limit.exceeded": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * limit.exceeded delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookLimitExceeded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "limit.reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * limit.reset delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookLimitReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "limit.threshold_reached": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * limit.threshold_reached delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookLimitThresholdReached"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "outcome.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * outcome.completed delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookOutcomeCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.successful": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * payment.successful delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookPaymentSuccessful"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.cancelled delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookSubscriptionCancelled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.created delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookSubscriptionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.updated delivery
         * @description Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.
         */
        post: operations["webhookSubscriptionUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Account: {
            billing_address: {
                city?: string;
                country?: string;
                state?: string;
                street?: string;
                zip?: string;
            } | null;
            /** Format: date-time */
            created_at: string;
            description: string | null;
            email: string | null;
            external_id: string | null;
            id: string;
            name: string;
            /** Format: date-time */
            updated_at: string;
        };
        Agent: {
            account_id: string | null;
            /** Format: date-time */
            created_at: string;
            description: string | null;
            id: string;
            is_active: boolean;
            name: string;
            type: "langgraph" | "crewai" | "n8n" | "custom";
        };
        AgentInstance: {
            account_id: string | null;
            agent_type_id: string | null;
            contact_id: string | null;
            /** Format: date-time */
            created_at: string;
            description: string | null;
            id: string;
            is_active: boolean;
            name: string;
            type: ("langgraph" | "crewai" | "n8n" | "custom") | null;
            /** Format: date-time */
            updated_at: string;
        };
        AgentType: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            id: string;
            name: string;
            /** Format: date-time */
            updated_at: string;
        };
        ApiKey: {
            /** Format: date-time */
            created_at: string;
            expires_at: string | null;
            id: string;
            kind: "api" | "sdk";
            name: string;
            permission: "read-only" | "read-write" | "admin" | "sdk";
            /** @description the first characters of the key, for display */
            prefix: string;
            rate_limit_is_default: boolean;
            /** @description the key's own limit, else its kind's default */
            rate_limit_per_minute: number;
            revoked_at: string | null;
            rotated_to: string | null;
            status: "active" | "rotating" | "expired" | "revoked";
        };
        AttemptResult: {
            attempt: number;
            delivery_id: string;
            error: string | null;
            next_attempt_at: string | null;
            status: "pending" | "delivered" | "failed";
            status_code: number | null;
        };
        BillRun: {
            /** @description the same as id */
            bill_run_id: string;
            /** Format: date-time */
            billing_date: string;
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
            failures: unknown;
            id: string;
            invoice_count: number;
            /** @description on reads of one bill run */
            invoice_ids?: string[];
            invoices_created: number;
            invoices_existing: number;
            status: "running" | "completed" | "failed";
            subscriptions_considered: number;
            subscriptions_skipped: number;
            /** @description amount per currency code */
            totals: {
                [key: string]: string;
            };
        };
        Charge: {
            charge_model_id: string;
            /** @description the same canonical value as charge_type_code */
            charge_type: string;
            charge_type_code: string;
            /** Format: date-time */
            created_at: string;
            currency: string;
            description: string | null;
            id: string;
            name: string;
            pricing: {
                [key: string]: unknown;
            };
            rate_plan_id: string;
            /** @description the pricing merged with its charge model, as the rating engine reads it */
            resolved_pricing: unknown;
            unit_of_measure: string | null;
            /** Format: date-time */
            updated_at: string;
        };
        ChargeModel: {
            /** Format: date-time */
            created_at: string;
            description: string;
            id: string;
            name: string;
            pricing_strategy: {
                [key: string]: unknown;
            };
            type: string;
            /** Format: date-time */
            updated_at: string;
        };
        Contact: {
            account_id: string;
            /** Format: date-time */
            created_at: string;
            email: string;
            first_name: string;
            id: string;
            last_name: string;
            role: "billing" | "technical";
            /** Format: date-time */
            updated_at: string;
        };
        CostRule: {
            action_type: string | null;
            basis: "per_input_token" | "per_output_token" | "per_total_token" | "per_api_call" | "per_action" | "per_unit" | "per_cache_read_token" | "per_cache_write_token" | "per_reasoning_token";
            category: "llm" | "api" | "infrastructure";
            /** Format: date-time */
            created_at: string;
            currency: string;
            /** Format: date-time */
            effective_from: string;
            effective_to: string | null;
            id: string;
            is_active: boolean;
            model_rates: {
                [key: string]: string;
            };
            name: string;
            rate: string | null;
            unit_field: string | null;
            versions?: {
                /** Format: date-time */
                effective_from: string;
                effective_to: string | null;
                model_rates: {
                    [key: string]: string;
                };
                rate: string | null;
            }[];
        };
        Delivery: {
            attempt_count: number;
            attempts: components["schemas"]["DeliveryAttempt"][];
            /** Format: date-time */
            created_at: string;
            delivered_at: string | null;
            event: string;
            event_id: string;
            id: string;
            last_error: string | null;
            last_status_code: number | null;
            next_attempt_at: string | null;
            status: "pending" | "delivered" | "failed";
            webhook_id: string;
        };
        DeliveryAttempt: {
            attempt: number;
            duration_ms: number;
            error: string | null;
            /** Format: date-time */
            started_at: string;
            status_code: number | null;
        };
        Error: {
            error: {
                /** @description shared/errors.ts ErrorCode, e.g. validation_failed */
                code: string;
                details?: {
                    message: string;
                    path?: string;
                }[];
                message: string;
                request_id: string;
            };
        };
        EventsRejected: components["schemas"]["Error"] & {
            accepted: number;
            /** Format: date-time */
            created_at: string;
            rejected: number;
            /** @description one result per event, in the order sent */
            results: ({
                id: string;
                index: number;
                /** @constant */
                status: "processed";
            } | {
                error: {
                    code: string;
                    message: string;
                };
                index: number;
                /** @constant */
                status: "rejected";
            })[];
        };
        /** @description An invoice or credit note; lines and usage on reads of one */
        Invoice: {
            account_id: string;
            /** @description the same as total */
            amount: string;
            /** @description total - credits_applied - payment_applied: what the customer owes, never below zero; 0 on a void invoice */
            amount_due: string;
            bill_run_id: string | null;
            billing_cycle: ("monthly" | "quarterly" | "annual") | null;
            /** @description YYYY-MM of period_start */
            billing_period: string;
            corrected_by: {
                credit_note_id: string | null;
                invoice_id: string;
            } | null;
            correction_reason: string | null;
            corrects_invoice_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description prepaid credits applied (the sum of the credits_applied lines, as a positive amount; docs/credits.md, Credits) */
            credits_applied: string;
            currency: string;
            /** @description exact decimal as text, e.g. "12.50" */
            discount_total: string;
            /** Format: date-time */
            due_date: string;
            finalized_at: string | null;
            /** Format: date-time */
            grace_until: string;
            id: string;
            /** @description the same as id */
            invoice_id: string;
            /** Format: date-time */
            issue_date: string;
            kind: "invoice" | "credit_note";
            /** @description on reads of one invoice */
            lines?: components["schemas"]["InvoiceLine"][];
            number: string | null;
            paid_at: string | null;
            /** @description a correction’s replacement: what the payment of the corrected invoice settles of it (docs/credits.md, Credits) */
            payment_applied: string;
            payment_reference: string | null;
            /** Format: date-time */
            period_end: string;
            /** Format: date-time */
            period_start: string;
            rate_plan_id: string | null;
            /** Format: date-time */
            rated_at: string;
            replaces_invoice_id: string | null;
            status: "draft" | "finalized" | "paid" | "void";
            /** @description null on a credit purchase invoice (a paid grant’s own invoice) */
            subscription_id: string | null;
            /** @description exact decimal as text, e.g. "12.50" */
            subtotal: string;
            /** @description exact decimal as text, e.g. "12.50" */
            total: string;
            /** Format: date-time */
            updated_at: string;
            /** @description the usage that produced the lines (on reads of one invoice) */
            usage?: unknown;
            voided_at: string | null;
        };
        InvoiceLine: {
            agent_instance_id: string | null;
            /** @description exact decimal as text, e.g. "12.50" */
            amount: string;
            charge_id: string;
            charge_name: string;
            charge_type: string;
            discount?: unknown;
            /** @description on the minimum_commitment true-up line: the minimum per period (null when it differs by segment), the minimum owed for the billed time, what the period billed after discounts, and each segment with its minimum and share of the period */
            minimum_commitment?: {
                /** @description exact decimal as text, e.g. "12.50" */
                billed: string;
                minimum: string | null;
                parts: {
                    /** Format: date-time */
                    from: string;
                    minimum: string | null;
                    /** @description exact decimal as text, e.g. "12.50" */
                    proration: string;
                    /** Format: date-time */
                    to: string;
                }[];
                /** @description exact decimal as text, e.g. "12.50" */
                prorated_minimum: string;
                /** @description exact decimal as text, e.g. "12.50" */
                true_up: string;
            };
            model: string;
            overage?: unknown;
            position: number;
            proration: string | null;
            /** @description exact decimal as text, e.g. "12.50" */
            quantity: string;
            rate_plan_id: string | null;
            service_period: {
                /** Format: date-time */
                end: string;
                /** Format: date-time */
                start: string;
            };
            tiers: unknown;
            unit: string | null;
            unit_price: string | null;
            usage_query: unknown;
        };
        InvoiceTemplate: {
            /** Format: date-time */
            created_at: string;
            id: string;
            is_active: boolean;
            name: string;
            template_data: {
                company_name?: string;
                logo_url?: string;
            };
            /** Format: date-time */
            updated_at: string;
        };
        OutcomeRule: {
            action_type: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            effective_from: string;
            effective_to: string | null;
            id: string;
            is_active: boolean;
            metadata_match: {
                [key: string]: unknown;
            };
            name: string;
            outcome_type: string;
            /** @description exact decimal as text, e.g. "12.50" */
            value: string;
            value_field: string | null;
        };
        PnlAnalysis: {
            account_id: string | null;
            agent_instance_id: string | null;
            analysis_type: "agent" | "customer" | "environment";
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            end_date: string;
            error: string | null;
            granularity: string;
            id: string;
            /** @description the P&L once completed, else null */
            result: unknown;
            /** Format: date-time */
            start_date: string;
            started_at: string | null;
            status: "pending" | "running" | "completed" | "failed";
        };
        Product: {
            agent_type_id: string;
            /** Format: date-time */
            created_at: string;
            description: string | null;
            id: string;
            name: string;
            /** Format: date-time */
            updated_at: string;
        };
        RatePlan: {
            billing_cycle_code: "monthly" | "quarterly" | "annual";
            /** Format: date-time */
            created_at: string;
            /** @description ISO 4217 code */
            currency: string;
            description: string | null;
            id: string;
            minimum_commitment: string | null;
            name: string;
            prepaid_commitment: {
                /** @description committed for each term, at the currency's minor units */
                amount: string;
                /** @description 1: invoiced up front */
                installments: number;
                renews: boolean;
                term_months: number;
            } | null;
            product_id: string;
            /** Format: date-time */
            updated_at: string;
        };
        RatePlanWithCharges: {
            billing_cycle_code: "monthly" | "quarterly" | "annual";
            charges: components["schemas"]["Charge"][];
            /** Format: date-time */
            created_at: string;
            /** @description ISO 4217 code */
            currency: string;
            description: string | null;
            id: string;
            minimum_commitment: string | null;
            name: string;
            prepaid_commitment: {
                /** @description committed for each term, at the currency's minor units */
                amount: string;
                /** @description 1: invoiced up front */
                installments: number;
                renews: boolean;
                term_months: number;
            } | null;
            product_id: string;
            /** Format: date-time */
            updated_at: string;
        };
        Subscription: {
            account_id: string;
            activated_at: string | null;
            agent_instance_ids: string[];
            cancel_date: string | null;
            cancel_reason: string | null;
            cancelled_at: string | null;
            /** @description the terms of its prepaid commitment (on reads of one subscription) */
            commitment_terms?: {
                amount: string;
                currency: string;
                /** Format: date-time */
                ends_at: string;
                /** @description the paid credit grant scoped to the subscription that carries the amount (its ledger entries: GET /v1/credits/entries?grant_id=) */
                grant_id: string;
                installments: {
                    amount: string;
                    /** Format: date-time */
                    due_at: string;
                    invoice_id: string | null;
                    n: number;
                }[];
                renews: boolean;
                /** Format: date-time */
                starts_at: string;
                /** @description numbered from 1; a renewal is the next */
                term: number;
            }[];
            contract_effective_date: string | null;
            /** Format: date-time */
            created_at: string;
            id: string;
            minimum_commitment: string | null;
            paused_at: string | null;
            prepaid_commitment: {
                /** @description committed for each term, at the currency's minor units */
                amount: string;
                /** @description 1: invoiced up front */
                installments: number;
                renews: boolean;
                term_months: number;
            } | null;
            /** @description the rate plan in force now (a plan change effective later is in scheduled_changes) */
            rate_plan_id: string;
            renewed_at: string | null;
            /** @description moves recorded to take effect later, in the order they take effect, each with the status and plan the subscription has once it takes effect */
            scheduled_changes: {
                /** Format: date-time */
                effective_at: string;
                rate_plan_id: string;
                status: "draft" | "active" | "paused" | "cancelled";
                type: string;
            }[];
            /** @description the status in force now: a cancellation, pause or activation effective later is in scheduled_changes */
            status: "draft" | "active" | "paused" | "cancelled";
            /** Format: date-time */
            updated_at: string;
        };
        SubscriptionEvent: {
            /** Format: date-time */
            created_at: string;
            data: unknown;
            effective_at: string | null;
            from_status: string | null;
            id: string;
            rate_plan_id: string | null;
            to_status: string | null;
            type: string;
        };
        TaggableItem: {
            count: number;
            description: string | null;
            kind: "action" | "outcome";
            /** Format: date-time */
            last_seen_at: string;
            name: string;
            tagged: boolean;
        };
        Usage: {
            /** Format: date-time */
            end_date: string;
            group_by: "agent" | "account" | "customer" | "none";
            /** Format: date-time */
            start_date: string;
            usage: {
                account_id?: string;
                /** @description distinct actions (integer as text) */
                actions: string;
                agent_instance_id?: string;
                /** @description input tokens written to the prompt cache (part of input_tokens) */
                cache_creation_input_tokens: string;
                /** @description input tokens read from the prompt cache (part of input_tokens) */
                cache_read_input_tokens: string;
                /** @description input tokens, cache reads and writes included (integer as text) */
                input_tokens: string;
                /** @description exact decimal as text, e.g. "12.50" */
                outcome_value: string;
                /** @description distinct outcome events (integer as text) */
                outcomes: string;
                /** @description output tokens, reasoning included (integer as text) */
                output_tokens: string;
                /** @description output tokens spent reasoning (part of output_tokens) */
                reasoning_tokens: string;
                total_tokens: string;
                /** @description distinct users (integer as text) */
                users: string;
            }[];
        };
        WebhookEndpoint: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            events: string[];
            id: string;
            is_active: boolean;
            /** @description the last characters of the signing secret */
            secret_hint: string;
            secret_rotated_at: string | null;
            /** Format: date-time */
            updated_at: string;
            url: string;
        };
    };
    responses: {
        /** @description Invalid request: invalid_json, invalid_body or validation_failed (details name the fields) */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Conflict: duplicate, still referenced, or not allowed in this state */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Invalid request: invalid_json, invalid_body or validation_failed (details name the fields); a batch whose every event was rejected adds the per-event results */
        EventsRejected: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["EventsRejected"];
            };
        };
        /** @description Well-formed but refused (unknown or inactive agent, timestamp out of range); a batch whose every event was rejected adds the per-event results */
        EventsUnprocessable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["EventsRejected"];
            };
        };
        /** @description The credential may not call this endpoint */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not found in this environment */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Request body over the limit (1 MiB unless stated) */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A dependency (Postgres, NATS, ClickHouse) is unavailable, Tally is starting, or the process holds as many request bodies as its memory budget allows; retry after Retry-After */
        ServiceUnavailable: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Over the credential's rate limit, or too many failed authentications from this address; retry after Retry-After */
        TooManyRequests: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing or invalid credential */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Content-Type not supported */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getApiAccountByAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiAccountByAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_address?: {
                        city?: string;
                        country?: string;
                        state?: string;
                        street?: string;
                        zip?: string;
                    } | null;
                    description?: string | null;
                    email?: string | null;
                    external_id?: string | null;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiAccountByAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAccountByAccountIdCreditBalance: {
        parameters: {
            query?: {
                at?: string;
            };
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** Format: date-time */
                        at: string;
                        balances: {
                            /** @description exact decimal as text, e.g. "12.50" */
                            adjusted: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            available: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            burned: string;
                            currency: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            expired: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            granted: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            held: string;
                            /** @description what the open periods’ usage so far is rated at (charges after discounts, no minimum-commitment true-up); null for a balance at an explicit `at` */
                            pending: string | null;
                            /** @description the part of pending the credits would pay (as storing the open periods’ invoices now would apply them); null with pending */
                            pending_covered: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            voided: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAccountByAccountIdCreditSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        settings: {
                            account_id: string;
                            currency: string;
                            low_balance_threshold: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAccountByAccountIdCreditSettingsUpdate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currency: string;
                    low_balance_threshold: (number | string) | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        currency: string;
                        low_balance_threshold: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAccountByAccountIdLimits: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            blocked: boolean;
                            currency: string | null;
                            current: string | null;
                            evaluated_at: string | null;
                            limit_id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            period_start: string | null;
                            reached: boolean;
                            remaining: string | null;
                            resets_at: string | null;
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAccountAll: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accounts: components["schemas"]["Account"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAccountCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_address?: {
                        city?: string;
                        country?: string;
                        state?: string;
                        street?: string;
                        zip?: string;
                    } | null;
                    description?: string | null;
                    email?: string | null;
                    external_id?: string | null;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentInstanceByAgentInstanceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_instance_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentInstance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiAgentInstanceByAgentInstanceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_instance_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string | null;
                    agent_type_id?: string;
                    contact_id?: string | null;
                    description?: string | null;
                    is_active?: boolean;
                    name?: string;
                    type?: "langgraph" | "crewai" | "n8n" | "custom";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentInstance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiAgentInstanceByAgentInstanceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_instance_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAgentInstanceByAgentInstanceIdRefresh: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_instance_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_type_id: string | null;
                        contact_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        id: string;
                        is_active: boolean;
                        name: string;
                        /** @description the instance secret, answered once */
                        secret: string;
                        type: ("langgraph" | "crewai" | "n8n" | "custom") | null;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentInstanceAll: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_instances: components["schemas"]["AgentInstance"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAgentInstanceCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string | null;
                    agent_type_id: string;
                    contact_id?: string | null;
                    description?: string | null;
                    name: string;
                    type?: "langgraph" | "crewai" | "n8n" | "custom";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_type_id: string | null;
                        contact_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        id: string;
                        is_active: boolean;
                        name: string;
                        /** @description the instance secret, answered once */
                        secret: string;
                        type: ("langgraph" | "crewai" | "n8n" | "custom") | null;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentInstanceCreditBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_instance_id: string;
                        /** Format: date-time */
                        at: string;
                        balances: {
                            /** @description exact decimal as text, e.g. "12.50" */
                            available: string;
                            currency: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentInstanceInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_type_id: string | null;
                        contact_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        environment_id: string;
                        id: string;
                        is_active: boolean;
                        name: string;
                        organization_id: string;
                        type: ("langgraph" | "crewai" | "n8n" | "custom") | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description the environment id (value-python names it a workspace) */
                        workspace_id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentInstanceLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_instance_id: string;
                        blocked: boolean;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            blocked: boolean;
                            currency: string | null;
                            current: string | null;
                            evaluated_at: string | null;
                            limit_id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            period_start: string | null;
                            reached: boolean;
                            remaining: string | null;
                            resets_at: string | null;
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAgentInstanceValidateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    secret: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_instance: components["schemas"]["AgentInstance"];
                        /** @constant */
                        valid: true;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentTypeByAgentTypeId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_type_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentType"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiAgentTypeByAgentTypeId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_type_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string | null;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentType"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiAgentTypeByAgentTypeId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_type_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiAgentTypeAll: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_types: components["schemas"]["AgentType"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiAgentTypeCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string | null;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentType"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiApiKeys: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        api_keys: components["schemas"]["ApiKey"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    permission: "read-only" | "read-write" | "admin" | "sdk";
                    rate_limit_per_minute?: number | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        expires_at: string | null;
                        id: string;
                        /** @description the key, answered once */
                        key: string;
                        kind: "api" | "sdk";
                        name: string;
                        permission: "read-only" | "read-write" | "admin" | "sdk";
                        /** @description the first characters of the key, for display */
                        prefix: string;
                        rate_limit_is_default: boolean;
                        /** @description the key's own limit, else its kind's default */
                        rate_limit_per_minute: number;
                        revoked_at: string | null;
                        rotated_to: string | null;
                        status: "active" | "rotating" | "expired" | "revoked";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiApiKeysByKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    rate_limit_per_minute?: number | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiApiKeysByKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiApiKeysByKeyIdRotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        expires_at: string | null;
                        id: string;
                        /** @description the key, answered once */
                        key: string;
                        kind: "api" | "sdk";
                        name: string;
                        /** Format: date-time */
                        old_key_expires_at: string;
                        permission: "read-only" | "read-write" | "admin" | "sdk";
                        /** @description the first characters of the key, for display */
                        prefix: string;
                        rate_limit_is_default: boolean;
                        /** @description the key's own limit, else its kind's default */
                        rate_limit_per_minute: number;
                        revoked_at: string | null;
                        rotated_from: string;
                        rotated_to: string | null;
                        status: "active" | "rotating" | "expired" | "revoked";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiChargeModels: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        charge_models: components["schemas"]["ChargeModel"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiChargeModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description: string;
                    name: string;
                    pricing_strategy: {
                        [key: string]: unknown;
                    };
                    type: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChargeModel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiChargeModelsByChargeModelId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                charge_model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChargeModel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiChargeModelsByChargeModelId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                charge_model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiContactByContactId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contact_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiContactByContactId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contact_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string;
                    email?: string;
                    first_name?: string;
                    last_name?: string;
                    role?: "billing" | "technical";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiContactByContactId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contact_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiContactAll: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        contacts: components["schemas"]["Contact"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiContactCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    email: string;
                    first_name: string;
                    last_name: string;
                    role?: "billing" | "technical";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditAdjustmentsCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount: number | string;
                    grant_id: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** @description the same as id */
                        entry_id: string;
                        grant_id: string;
                        id: string;
                        invoice_id: string | null;
                        /** Format: date-time */
                        occurred_at: string;
                        reason: string | null;
                        /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                        refunded?: string;
                        type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiCreditEntries: {
        parameters: {
            query?: {
                account_id?: string;
                from?: string;
                grant_id?: string;
                invoice_id?: string;
                limit?: number;
                skip?: number;
                to?: string;
                type?: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entries: {
                            account_id: string;
                            /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                            amount: string;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            /** @description the same as id */
                            entry_id: string;
                            grant_id: string;
                            id: string;
                            invoice_id: string | null;
                            /** Format: date-time */
                            occurred_at: string;
                            reason: string | null;
                            /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                            refunded?: string;
                            type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                        }[];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiCreditGrants: {
        parameters: {
            query?: {
                account_id?: string;
                currency?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        grants: {
                            account_id: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            amount: string;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            /** Format: date-time */
                            effective_at: string;
                            expires_at: string | null;
                            /** @description the same as id */
                            grant_id: string;
                            /** @description held by draft invoices */
                            held: string;
                            id: string;
                            invoice_id: string | null;
                            kind: "paid" | "free";
                            metadata: {
                                [key: string]: unknown;
                            };
                            price: string | null;
                            /** @description 1 burns first, 100 last */
                            priority: number;
                            /** @description left to burn (entries summed, less what drafts hold) */
                            remaining: string;
                            scope: {
                                charge_ids?: string[];
                                product_ids?: string[];
                                /** @description a prepaid commitment's grant: only this subscription's invoices */
                                subscription_id?: string;
                                units?: string[];
                            } | null;
                            status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                            usable: "immediately" | "on_payment";
                            usable_at: string | null;
                            void_reason: string | null;
                            voided_at: string | null;
                        }[];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiCreditGrantsByGrantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditGrantsByGrantIdVoid: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditGrantsCreate: {
        parameters: {
            query?: never;
            header?: {
                /** @description a retry with the same key and request grants once (answered with Idempotent-Replayed: true); another request with it is a 409 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    amount: number | string;
                    currency: string;
                    effective_at?: string;
                    expires_at?: string | null;
                    kind: "paid" | "free";
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                    price?: number | string;
                    priority?: number;
                    scope?: {
                        charge_ids?: string[];
                        product_ids?: string[];
                        units?: string[];
                    } | null;
                    usable?: "immediately" | "on_payment";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditRefundsCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount: number | string;
                    grant_id: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** @description the same as id */
                        entry_id: string;
                        grant_id: string;
                        id: string;
                        invoice_id: string | null;
                        /** Format: date-time */
                        occurred_at: string;
                        reason: string | null;
                        /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                        refunded?: string;
                        type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiCreditTopups: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        skip: number;
                        topups: {
                            account_id: string;
                            amount: string | null;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            disabled_at: string | null;
                            expires_after_days: number | null;
                            id: string;
                            interval: ("week" | "month") | null;
                            kind: "paid" | "free";
                            metadata: {
                                [key: string]: unknown;
                            };
                            next_run_at: string | null;
                            price: string | null;
                            priority: number;
                            /** Format: date-time */
                            starts_at: string;
                            status: "active" | "disabled";
                            target_balance: string | null;
                            threshold: string | null;
                            /** @description the same as id */
                            topup_id: string;
                            type: "recurring" | "threshold";
                            usable: "immediately" | "on_payment";
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiCreditTopupsByTopupId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                topup_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditTopupsByTopupIdDisable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                topup_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiCreditTopupsCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    amount?: number | string;
                    currency: string;
                    expires_after_days?: number;
                    interval?: "week" | "month";
                    kind?: "paid" | "free";
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                    price?: number | string;
                    priority?: number;
                    starts_at?: string;
                    target_balance?: number | string;
                    threshold?: number | string;
                    type: "recurring" | "threshold";
                    usable?: "immediately" | "on_payment";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiEmbedsByAgentInstanceId: {
        parameters: {
            query?: {
                duration?: string;
            };
            header?: never;
            path: {
                agent_instance_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_instance_id: string;
                        costs_behind: boolean;
                        days: {
                            actions: number;
                            date: string;
                            money: {
                                /** @description exact decimal as text, e.g. "12.50" */
                                cost: string;
                                currency: string;
                                /** @description exact decimal as text, e.g. "12.50" */
                                margin: string;
                                /** @description exact decimal as text, e.g. "12.50" */
                                revenue: string;
                            }[];
                            /** @description exact decimal as text, e.g. "12.50" */
                            outcome_value: string;
                            outcomes: number;
                        }[];
                        /** @description e.g. 7days */
                        duration: string;
                        /** Format: date-time */
                        end_date: string;
                        /** Format: date-time */
                        start_date: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/cloudevents-batch+json": {
                    /** @description metadata; `value` is an outcome's value (kept exact), `model` and token counts as on /v1/actions */
                    data?: Record<string, never>;
                    /** @enum {string} */
                    datacontenttype?: "application/json";
                    /** @description the event id: counted once per agent instance */
                    id: string;
                    /** @description kept as metadata._source */
                    source: string;
                    /** @constant */
                    specversion: "1.0";
                    /** @description the agent instance's id or secret (optional with X-Agent-Secret) */
                    subject?: string;
                    /** Format: date-time */
                    time?: string | null;
                    /** @description the action type, or `outcome.<name>` for an outcome */
                    type: string;
                }[];
                "application/cloudevents+json": {
                    /** @description metadata; `value` is an outcome's value (kept exact), `model` and token counts as on /v1/actions */
                    data?: Record<string, never>;
                    /** @enum {string} */
                    datacontenttype?: "application/json";
                    /** @description the event id: counted once per agent instance */
                    id: string;
                    /** @description kept as metadata._source */
                    source: string;
                    /** @constant */
                    specversion: "1.0";
                    /** @description the agent instance's id or secret (optional with X-Agent-Secret) */
                    subject?: string;
                    /** Format: date-time */
                    time?: string | null;
                    /** @description the action type, or `outcome.<name>` for an outcome */
                    type: string;
                };
                "application/json": {
                    /** @description metadata; `value` is an outcome's value (kept exact), `model` and token counts as on /v1/actions */
                    data?: Record<string, never>;
                    /** @enum {string} */
                    datacontenttype?: "application/json";
                    /** @description the event id: counted once per agent instance */
                    id: string;
                    /** @description kept as metadata._source */
                    source: string;
                    /** @constant */
                    specversion: "1.0";
                    /** @description the agent instance's id or secret (optional with X-Agent-Secret) */
                    subject?: string;
                    /** Format: date-time */
                    time?: string | null;
                    /** @description the action type, or `outcome.<name>` for an outcome */
                    type: string;
                } | {
                    /** @description metadata; `value` is an outcome's value (kept exact), `model` and token counts as on /v1/actions */
                    data?: Record<string, never>;
                    /** @enum {string} */
                    datacontenttype?: "application/json";
                    /** @description the event id: counted once per agent instance */
                    id: string;
                    /** @description kept as metadata._source */
                    source: string;
                    /** @constant */
                    specversion: "1.0";
                    /** @description the agent instance's id or secret (optional with X-Agent-Secret) */
                    subject?: string;
                    /** Format: date-time */
                    time?: string | null;
                    /** @description the action type, or `outcome.<name>` for an outcome */
                    type: string;
                }[];
            };
        };
        responses: {
            /** @description Every event accepted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Some event was refused (the good ones are stored; resending the batch is safe): per-event results */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description Missing or invalid credential */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description The credential may not send events */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description Content-Type not supported */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description Some event was well-formed but refused (unknown or inactive agent, time out of range) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description Rate limited; retry after Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
            /** @description The events could not be stored; retry the batch after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        detail: string;
                        error: components["schemas"]["Error"];
                        status: number;
                        title: string;
                        type: string;
                    };
                };
            };
        };
    };
    getApiInvoiceBillRuns: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        bill_runs: components["schemas"]["BillRun"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiInvoiceBillRunsByBillRunId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                bill_run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceBillRunsCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_date: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiInvoiceInvoiceTemplatesByTemplateId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                template_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    is_active?: boolean;
                    name?: string;
                    template_data?: {
                        company_name?: string;
                        logo_url?: string;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceTemplate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiInvoiceInvoiceTemplatesActive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceTemplate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiInvoiceInvoices: {
        parameters: {
            query?: {
                account_id?: string;
                /** @description only invoices whose billing period (YYYY-MM of period_start) is this month or later */
                billing_period_from?: string;
                /** @description only invoices whose billing period (YYYY-MM of period_start) is this month or earlier */
                billing_period_to?: string;
                kind?: "invoice" | "credit_note";
                limit?: number;
                skip?: number;
                status?: "draft" | "finalized" | "paid" | "void";
                subscription_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        invoices: components["schemas"]["Invoice"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiInvoiceInvoicesByInvoiceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceInvoicesByInvoiceIdCorrect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        corrected_invoice_id: string;
                        credit_note: components["schemas"]["Invoice"] | null;
                        invoice: components["schemas"]["Invoice"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceInvoicesByInvoiceIdFinalize: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiInvoiceInvoicesByInvoiceIdHtml: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceInvoicesByInvoiceIdPay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount?: number | string;
                    paid_at?: string;
                    reference?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceInvoicesByInvoiceIdVoid: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiInvoiceTemplatesCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    is_active?: boolean;
                    name: string;
                    template_data: {
                        company_name?: string;
                        logo_url?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceTemplate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiLimitAlertAll: {
        parameters: {
            query?: {
                limit?: number;
                limit_id?: string;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        alerts: {
                            event: "limit.threshold_reached" | "limit.exceeded" | "limit.reset";
                            /** Format: date-time */
                            fired_at: string;
                            id: string;
                            limit_id: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            limit_value: string;
                            /** Format: date-time */
                            period_start: string;
                            /** @description percent of the value; 0 for limit.reset */
                            threshold: number;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                        }[];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiLimitByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiLimitByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action?: "notify" | "flag" | "block";
                    description?: string | null;
                    thresholds?: number[];
                    value?: number | string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiLimitByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiLimitByLimitIdState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        blocked: boolean;
                        currency: string | null;
                        current: string | null;
                        evaluated_at: string | null;
                        limit_id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        period_start: string | null;
                        reached: boolean;
                        remaining: string | null;
                        resets_at: string | null;
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiLimitAll: {
        parameters: {
            query?: {
                account_id?: string;
                agent_instance_id?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            currency: string | null;
                            description: string | null;
                            id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiLimitCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string;
                    action?: "notify" | "flag" | "block";
                    agent_instance_id?: string;
                    currency?: string;
                    description?: string | null;
                    metric: "spend" | "available_balance" | "quantity";
                    scope: "account" | "agent_instance" | "environment";
                    thresholds?: number[];
                    unit?: string;
                    value: number | string;
                    window?: "day" | "week" | "billing_period";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getApiOutcomeRules: {
        parameters: {
            query?: {
                include_inactive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        outcome_rules: components["schemas"]["OutcomeRule"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiOutcomeRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action_type: string;
                    effective_from?: string;
                    metadata_match?: {
                        [key: string]: string | number | boolean;
                    };
                    name: string;
                    outcome_type: string;
                    value?: string | number;
                    value_field?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutcomeRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiOutcomeRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutcomeRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiOutcomeRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action_type?: string;
                    effective_from?: string;
                    metadata_match?: {
                        [key: string]: string | number | boolean;
                    };
                    name?: string;
                    outcome_type?: string;
                    value?: string | number;
                    value_field?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutcomeRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiOutcomeRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutcomeRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiPnl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string;
                    agent_instance_id?: string;
                    analysis_type: "agent" | "customer" | "environment";
                    customer_id?: string;
                    end_date: string;
                    granularity?: "week" | "month" | "quarter";
                    start_date: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_instance_id: string | null;
                        analysis_type: "agent" | "customer" | "environment";
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        end_date: string;
                        id: string;
                        /** Format: date-time */
                        start_date: string;
                        status: "pending" | "running" | "completed" | "failed";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiPnlByAnalysisId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                analysis_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PnlAnalysis"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiProducts: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        products: components["schemas"]["Product"][];
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiProducts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agent_type_id: string;
                    description?: string | null;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Product"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiProductsByProductId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                product_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Product"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiProductsByProductId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                product_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agent_type_id?: string;
                    description?: string | null;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Product"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiProductsByProductId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                product_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiProductsByProductIdRateplans: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path: {
                product_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        rate_plans: components["schemas"]["RatePlan"][];
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiProductsByProductIdRateplans: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                product_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_cycle_code: "monthly" | "quarterly" | "annual";
                    currency?: string;
                    description?: string | null;
                    /** @description minimum billed per billing period, in the currency (decimal, at most its minor units); null: none */
                    minimum_commitment?: string | number | null;
                    name: string;
                    /** @description prepaid commitment: an amount for a term, invoiced up front or in installments, drawn down by the subscription's invoices; null: none (on a subscription: the plan's) */
                    prepaid_commitment?: {
                        /** @description the amount committed for a term, in the currency (decimal, at most its minor units); 0 on a subscription: none */
                        amount: string | number;
                        /** @description invoiced in this many equal parts, the first at the term start (default 1: up front) */
                        installments?: number;
                        /** @description a new term starts when one ends (default true) */
                        renews?: boolean;
                        /** @description length of a term in months (default 12) */
                        term_months?: number;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RatePlan"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiProductsRateplansByRatePlanId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rate_plan_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RatePlanWithCharges"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiProductsRateplansByRatePlanIdCharges: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path: {
                rate_plan_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        charges: components["schemas"]["Charge"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiProductsRateplansByRatePlanIdCharges: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rate_plan_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    charge_model_id: string;
                    charge_type?: string;
                    charge_type_code?: string;
                    currency?: string;
                    description?: string | null;
                    name: string;
                    pricing?: {
                        [key: string]: unknown;
                    };
                    unit_of_measure?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Charge"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSimulationCharges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_period?: string;
                    rate_plan_id: string;
                    usage_data: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        billing_cycle: string;
                        billing_period: string;
                        charges: {
                            [key: string]: unknown;
                        }[];
                        currency: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        discount_total: string;
                        /** Format: date-time */
                        period_end: string;
                        /** Format: date-time */
                        period_start: string;
                        rate_plan_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        subtotal: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        total: string;
                        /** @description the same as total */
                        total_charge: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiSubscriptionBySubscriptionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdActivate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    effective_date?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    cancel_date?: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdChangePlan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    effective_date?: string;
                    rate_plan_id: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiSubscriptionBySubscriptionIdEvents: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: components["schemas"]["SubscriptionEvent"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiSubscriptionBySubscriptionIdInvoicePreview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        billing_period: string;
                        currency: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        discount_total: string;
                        lines: {
                            [key: string]: unknown;
                        }[];
                        /** Format: date-time */
                        period_end: string;
                        /** Format: date-time */
                        period_start: string;
                        /** @constant */
                        preview: true;
                        subscription_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        subtotal: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        total: string;
                        usage: unknown;
                        /** Format: date-time */
                        usage_through: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdPause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    effective_date?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdRenew: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    effective_date?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionBySubscriptionIdResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    effective_date?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiSubscriptionAll: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        skip: number;
                        subscriptions: components["schemas"]["Subscription"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiSubscriptionCreate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    agent_instance_ids?: string[];
                    contract_effective_date?: string;
                    /** @description minimum billed per billing period, in the currency (decimal, at most its minor units); null: none */
                    minimum_commitment?: string | number | null;
                    /** @description prepaid commitment: an amount for a term, invoiced up front or in installments, drawn down by the subscription's invoices; null: none (on a subscription: the plan's) */
                    prepaid_commitment?: {
                        /** @description the amount committed for a term, in the currency (decimal, at most its minor units); 0 on a subscription: none */
                        amount: string | number;
                        /** @description invoiced in this many equal parts, the first at the term start (default 1: up front) */
                        installments?: number;
                        /** @description a new term starts when one ends (default true) */
                        renews?: boolean;
                        /** @description length of a term in months (default 12) */
                        term_months?: number;
                    } | null;
                    rate_plan_id: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiTaggableItems: {
        parameters: {
            query?: {
                kind?: "action" | "outcome";
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        skip: number;
                        taggable_items: components["schemas"]["TaggableItem"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiTaggedActions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tagged_actions: {
                            action_name: string;
                            /** Format: date-time */
                            created_at: string;
                            description: string | null;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiTaggedActions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tagged_actions: {
                        action_name: string;
                        description?: string | null;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tagged_actions: {
                            action_name: string;
                            /** Format: date-time */
                            created_at: string;
                            description: string | null;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiTaggedOutcomes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tagged_outcomes: {
                            /** Format: date-time */
                            created_at: string;
                            description: string | null;
                            outcome_name: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiTaggedOutcomes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tagged_outcomes: {
                        description?: string | null;
                        outcome_name: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tagged_outcomes: {
                            /** Format: date-time */
                            created_at: string;
                            description: string | null;
                            outcome_name: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiWebhookDeliveriesByDeliveryId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt_count: number;
                        attempts: components["schemas"]["DeliveryAttempt"][];
                        /** Format: date-time */
                        created_at: string;
                        delivered_at: string | null;
                        event: string;
                        event_id: string;
                        id: string;
                        last_error: string | null;
                        last_status_code: number | null;
                        next_attempt_at: string | null;
                        /** @description the delivered body */
                        payload: unknown;
                        status: "pending" | "delivered" | "failed";
                        webhook_id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiWebhookDeliveriesByDeliveryIdResend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttemptResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiWebhooks: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        skip: number;
                        total: number;
                        webhooks: components["schemas"]["WebhookEndpoint"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string | null;
                    events: ("invoice.created" | "invoice.paid" | "outcome.completed" | "payment.successful" | "subscription.created" | "subscription.updated" | "subscription.cancelled" | "credits.granted" | "credits.expired" | "credits.balance_low" | "credits.depleted" | "limit.threshold_reached" | "limit.exceeded" | "limit.reset" | "*")[];
                    is_active?: boolean;
                    /** @description the signing secret; one starting with whsec_ must go on with the base64 of a 24 to 64 byte key (Standard Webhooks) */
                    secret?: string;
                    url: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        events: string[];
                        id: string;
                        is_active: boolean;
                        /** @description the signing secret, answered once */
                        secret: string;
                        /** @description the last characters of the signing secret */
                        secret_hint: string;
                        secret_rotated_at: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putApiWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string | null;
                    events?: ("invoice.created" | "invoice.paid" | "outcome.completed" | "payment.successful" | "subscription.created" | "subscription.updated" | "subscription.cancelled" | "credits.granted" | "credits.expired" | "credits.balance_low" | "credits.depleted" | "limit.threshold_reached" | "limit.exceeded" | "limit.reset" | "*")[];
                    is_active?: boolean;
                    secret?: unknown;
                    url?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiWebhooksByWebhookIdDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                skip?: number;
            };
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: components["schemas"]["Delivery"][];
                        limit: number;
                        skip: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postApiWebhooksByWebhookIdRotateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the signing secret; one starting with whsec_ must go on with the base64 of a 24 to 64 byte key (Standard Webhooks) */
                    secret?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        events: string[];
                        id: string;
                        is_active: boolean;
                        /** @description the signing secret, answered once */
                        secret: string;
                        /** @description the last characters of the signing secret */
                        secret_hint: string;
                        secret_rotated_at: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getConsoleAppCss: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getConsoleAppJs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every role is ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ready: boolean;
                        /** @description readiness per role */
                        roles: {
                            [key: string]: boolean;
                        };
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
            /** @description Some role is not ready yet */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ready: boolean;
                        /** @description readiness per role */
                        roles: {
                            [key: string]: boolean;
                        };
                    };
                };
            };
        };
    };
    getAccounts: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accounts: components["schemas"]["Account"][];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_address?: {
                        city?: string;
                        country?: string;
                        state?: string;
                        street?: string;
                        zip?: string;
                    } | null;
                    description?: string | null;
                    email?: string | null;
                    external_id?: string | null;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAccountsByAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAccountsByAccountIdCreditsBalance: {
        parameters: {
            query?: {
                at?: string;
            };
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** Format: date-time */
                        at: string;
                        balances: {
                            /** @description exact decimal as text, e.g. "12.50" */
                            adjusted: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            available: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            burned: string;
                            currency: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            expired: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            granted: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            held: string;
                            /** @description what the open periods’ usage so far is rated at (charges after discounts, no minimum-commitment true-up); null for a balance at an explicit `at` */
                            pending: string | null;
                            /** @description the part of pending the credits would pay (as storing the open periods’ invoices now would apply them); null with pending */
                            pending_covered: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            voided: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAccountsByAccountIdCreditsSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        settings: {
                            account_id: string;
                            currency: string;
                            low_balance_threshold: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putAccountsByAccountIdCreditsSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currency: string;
                    low_balance_threshold: (number | string) | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        currency: string;
                        low_balance_threshold: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAccountsByAccountIdLimits: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            blocked: boolean;
                            currency: string | null;
                            current: string | null;
                            evaluated_at: string | null;
                            limit_id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            period_start: string | null;
                            reached: boolean;
                            remaining: string | null;
                            resets_at: string | null;
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postActions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action_type: string;
                    agent_key?: string;
                    anonymous_id?: string;
                    event_id?: string;
                    id?: string;
                    idempotency_key?: string;
                    metadata?: {
                        [key: string]: unknown;
                    };
                    timestamp?: string;
                    user_id?: string;
                } | {
                    action_type: string;
                    agent_key?: string;
                    anonymous_id?: string;
                    event_id?: string;
                    id?: string;
                    idempotency_key?: string;
                    metadata?: {
                        [key: string]: unknown;
                    };
                    timestamp?: string;
                    user_id?: string;
                }[] | {
                    events: {
                        action_type: string;
                        agent_key?: string;
                        anonymous_id?: string;
                        event_id?: string;
                        id?: string;
                        idempotency_key?: string;
                        metadata?: {
                            [key: string]: unknown;
                        };
                        timestamp?: string;
                        user_id?: string;
                    }[];
                };
                "application/msgpack": string;
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Accepted: one event sent alone, or a batch whose every event was accepted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        id: string;
                        /** @constant */
                        status: "processed";
                    } | {
                        accepted: number;
                        /** Format: date-time */
                        created_at: string;
                        rejected: number;
                        /** @description one result per event, in the order sent */
                        results: ({
                            id: string;
                            index: number;
                            /** @constant */
                            status: "processed";
                        } | {
                            error: {
                                code: string;
                                message: string;
                            };
                            index: number;
                            /** @constant */
                            status: "rejected";
                        })[];
                    };
                };
            };
            /** @description A batch in which some events were accepted and some rejected (see results) */
            207: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: number;
                        /** Format: date-time */
                        created_at: string;
                        rejected: number;
                        /** @description one result per event, in the order sent */
                        results: ({
                            id: string;
                            index: number;
                            /** @constant */
                            status: "processed";
                        } | {
                            error: {
                                code: string;
                                message: string;
                            };
                            index: number;
                            /** @constant */
                            status: "rejected";
                        })[];
                    };
                };
            };
            400: components["responses"]["EventsRejected"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["EventsUnprocessable"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAgents: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agents: components["schemas"]["Agent"][];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postAgents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string | null;
                    agent_type_id?: string | null;
                    description?: string | null;
                    name: string;
                    type: "langgraph" | "crewai" | "n8n" | "custom";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        id: string;
                        is_active: boolean;
                        name: string;
                        /** @description the agent secret, answered once */
                        secret: string;
                        type: "langgraph" | "crewai" | "n8n" | "custom";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAgentsByAgentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAgentsMeCreditBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_instance_id: string;
                        /** Format: date-time */
                        at: string;
                        balances: {
                            /** @description exact decimal as text, e.g. "12.50" */
                            available: string;
                            currency: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAgentsMeLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        agent_instance_id: string;
                        blocked: boolean;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            blocked: boolean;
                            currency: string | null;
                            current: string | null;
                            evaluated_at: string | null;
                            limit_id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            period_start: string | null;
                            reached: boolean;
                            remaining: string | null;
                            resets_at: string | null;
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCostRules: {
        parameters: {
            query?: {
                include_inactive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cost_rules: components["schemas"]["CostRule"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCostRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action_type?: string | null;
                    basis: "per_input_token" | "per_output_token" | "per_total_token" | "per_api_call" | "per_action" | "per_unit" | "per_cache_read_token" | "per_cache_write_token" | "per_reasoning_token";
                    category: "llm" | "api" | "infrastructure";
                    currency: string;
                    effective_from?: string;
                    model_rates?: {
                        [key: string]: string | number;
                    };
                    name: string;
                    rate?: (string | number) | null;
                    reallocate?: boolean;
                    unit_field?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CostRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCostRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CostRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putCostRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action_type?: string | null;
                    basis?: "per_input_token" | "per_output_token" | "per_total_token" | "per_api_call" | "per_action" | "per_unit" | "per_cache_read_token" | "per_cache_write_token" | "per_reasoning_token";
                    category?: "llm" | "api" | "infrastructure";
                    currency?: string;
                    effective_from?: string;
                    model_rates?: {
                        [key: string]: string | number;
                    };
                    name?: string;
                    rate?: (string | number) | null;
                    reallocate?: boolean;
                    unit_field?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CostRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteCostRulesByRuleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CostRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCosts: {
        parameters: {
            query?: {
                agent_id?: string;
                customer_id?: string;
                end_date?: string;
                start_date?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        costs: {
                            actions: number;
                            agent_id: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            amount: string;
                            cost_type: string;
                            currency: string;
                            customer_id: string | null;
                            id: string;
                            /** @description YYYY-MM */
                            period: string;
                        }[];
                        /** @description true when the cost rollup had not caught up and raw events were read */
                        costs_behind: boolean;
                        /** Format: date-time */
                        end_date: string;
                        /** Format: date-time */
                        start_date: string;
                        /** @description amount per currency code */
                        total: {
                            [key: string]: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsAdjustments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount: number | string;
                    grant_id: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** @description the same as id */
                        entry_id: string;
                        grant_id: string;
                        id: string;
                        invoice_id: string | null;
                        /** Format: date-time */
                        occurred_at: string;
                        reason: string | null;
                        /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                        refunded?: string;
                        type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreditsEntries: {
        parameters: {
            query?: {
                account_id?: string;
                from?: string;
                grant_id?: string;
                invoice_id?: string;
                limit?: number;
                offset?: number;
                to?: string;
                type?: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entries: {
                            account_id: string;
                            /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                            amount: string;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            /** @description the same as id */
                            entry_id: string;
                            grant_id: string;
                            id: string;
                            invoice_id: string | null;
                            /** Format: date-time */
                            occurred_at: string;
                            reason: string | null;
                            /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                            refunded?: string;
                            type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                        }[];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreditsGrants: {
        parameters: {
            query?: {
                account_id?: string;
                currency?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        grants: {
                            account_id: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            amount: string;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            /** Format: date-time */
                            effective_at: string;
                            expires_at: string | null;
                            /** @description the same as id */
                            grant_id: string;
                            /** @description held by draft invoices */
                            held: string;
                            id: string;
                            invoice_id: string | null;
                            kind: "paid" | "free";
                            metadata: {
                                [key: string]: unknown;
                            };
                            price: string | null;
                            /** @description 1 burns first, 100 last */
                            priority: number;
                            /** @description left to burn (entries summed, less what drafts hold) */
                            remaining: string;
                            scope: {
                                charge_ids?: string[];
                                product_ids?: string[];
                                /** @description a prepaid commitment's grant: only this subscription's invoices */
                                subscription_id?: string;
                                units?: string[];
                            } | null;
                            status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                            usable: "immediately" | "on_payment";
                            usable_at: string | null;
                            void_reason: string | null;
                            voided_at: string | null;
                        }[];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsGrants: {
        parameters: {
            query?: never;
            header?: {
                /** @description a retry with the same key and request grants once (answered with Idempotent-Replayed: true); another request with it is a 409 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    amount: number | string;
                    currency: string;
                    effective_at?: string;
                    expires_at?: string | null;
                    kind: "paid" | "free";
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                    price?: number | string;
                    priority?: number;
                    scope?: {
                        charge_ids?: string[];
                        product_ids?: string[];
                        units?: string[];
                    } | null;
                    usable?: "immediately" | "on_payment";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreditsGrantsByGrantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsGrantsByGrantIdVoid: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** Format: date-time */
                        effective_at: string;
                        expires_at: string | null;
                        /** @description the same as id */
                        grant_id: string;
                        /** @description held by draft invoices */
                        held: string;
                        id: string;
                        invoice_id: string | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        price: string | null;
                        /** @description 1 burns first, 100 last */
                        priority: number;
                        /** @description left to burn (entries summed, less what drafts hold) */
                        remaining: string;
                        scope: {
                            charge_ids?: string[];
                            product_ids?: string[];
                            /** @description a prepaid commitment's grant: only this subscription's invoices */
                            subscription_id?: string;
                            units?: string[];
                        } | null;
                        status: "pending_payment" | "active" | "depleted" | "expired" | "void";
                        usable: "immediately" | "on_payment";
                        usable_at: string | null;
                        void_reason: string | null;
                        voided_at: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsRefunds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount: number | string;
                    grant_id: string;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        /** @description signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either */
                        amount: string;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        /** @description the same as id */
                        entry_id: string;
                        grant_id: string;
                        id: string;
                        invoice_id: string | null;
                        /** Format: date-time */
                        occurred_at: string;
                        reason: string | null;
                        /** @description the answer of a refund only: the money paid back (the entry's amount is the credit it took off; they differ when the grant was priced below or above its amount) */
                        refunded?: string;
                        type: "grant" | "burn" | "release" | "expiry" | "void" | "adjustment" | "overpayment" | "refund";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreditsTopups: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        offset: number;
                        topups: {
                            account_id: string;
                            amount: string | null;
                            /** Format: date-time */
                            created_at: string;
                            created_by: string | null;
                            currency: string;
                            disabled_at: string | null;
                            expires_after_days: number | null;
                            id: string;
                            interval: ("week" | "month") | null;
                            kind: "paid" | "free";
                            metadata: {
                                [key: string]: unknown;
                            };
                            next_run_at: string | null;
                            price: string | null;
                            priority: number;
                            /** Format: date-time */
                            starts_at: string;
                            status: "active" | "disabled";
                            target_balance: string | null;
                            threshold: string | null;
                            /** @description the same as id */
                            topup_id: string;
                            type: "recurring" | "threshold";
                            usable: "immediately" | "on_payment";
                        }[];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsTopups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    amount?: number | string;
                    currency: string;
                    expires_after_days?: number;
                    interval?: "week" | "month";
                    kind?: "paid" | "free";
                    metadata?: {
                        [key: string]: string | number | boolean | null;
                    };
                    price?: number | string;
                    priority?: number;
                    starts_at?: string;
                    target_balance?: number | string;
                    threshold?: number | string;
                    type: "recurring" | "threshold";
                    usable?: "immediately" | "on_payment";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreditsTopupsByTopupId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                topup_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postCreditsTopupsByTopupIdDisable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                topup_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string;
                        amount: string | null;
                        /** Format: date-time */
                        created_at: string;
                        created_by: string | null;
                        currency: string;
                        disabled_at: string | null;
                        expires_after_days: number | null;
                        id: string;
                        interval: ("week" | "month") | null;
                        kind: "paid" | "free";
                        metadata: {
                            [key: string]: unknown;
                        };
                        next_run_at: string | null;
                        price: string | null;
                        priority: number;
                        /** Format: date-time */
                        starts_at: string;
                        status: "active" | "disabled";
                        target_balance: string | null;
                        threshold: string | null;
                        /** @description the same as id */
                        topup_id: string;
                        type: "recurring" | "threshold";
                        usable: "immediately" | "on_payment";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getInvoices: {
        parameters: {
            query?: {
                account_id?: string;
                /** @description only invoices whose billing period (YYYY-MM of period_start) is this month or later */
                billing_period_from?: string;
                /** @description only invoices whose billing period (YYYY-MM of period_start) is this month or earlier */
                billing_period_to?: string;
                kind?: "invoice" | "credit_note";
                limit?: number;
                offset?: number;
                status?: "draft" | "finalized" | "paid" | "void";
                subscription_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        invoices: components["schemas"]["Invoice"][];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getInvoicesByInvoiceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postInvoicesByInvoiceIdPay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount?: number | string;
                    paid_at?: string;
                    reference?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postInvoicesGenerate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string;
                    billing_period: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        billing_period: string;
                        failures: {
                            code: string;
                            message: string;
                            subscription_id: string;
                        }[];
                        invoices: components["schemas"]["Invoice"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLimitAlerts: {
        parameters: {
            query?: {
                limit?: number;
                limit_id?: string;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        alerts: {
                            event: "limit.threshold_reached" | "limit.exceeded" | "limit.reset";
                            /** Format: date-time */
                            fired_at: string;
                            id: string;
                            limit_id: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            limit_value: string;
                            /** Format: date-time */
                            period_start: string;
                            /** @description percent of the value; 0 for limit.reset */
                            threshold: number;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                        }[];
                        limit: number;
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLimits: {
        parameters: {
            query?: {
                account_id?: string;
                agent_instance_id?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        limits: {
                            account_id: string | null;
                            action: "notify" | "flag" | "block";
                            agent_instance_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            currency: string | null;
                            description: string | null;
                            id: string;
                            metric: "spend" | "available_balance" | "quantity";
                            scope: "account" | "agent_instance" | "environment";
                            /** @description percentages of value that alert */
                            thresholds: number[];
                            unit: string | null;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description exact decimal as text, e.g. "12.50" */
                            value: string;
                            window: "day" | "week" | "billing_period";
                        }[];
                        offset: number;
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id?: string;
                    action?: "notify" | "flag" | "block";
                    agent_instance_id?: string;
                    currency?: string;
                    description?: string | null;
                    metric: "spend" | "available_balance" | "quantity";
                    scope: "account" | "agent_instance" | "environment";
                    thresholds?: number[];
                    unit?: string;
                    value: number | string;
                    window?: "day" | "week" | "billing_period";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLimitsByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteLimitsByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    patchLimitsByLimitId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    action?: "notify" | "flag" | "block";
                    description?: string | null;
                    thresholds?: number[];
                    value?: number | string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        currency: string | null;
                        description: string | null;
                        id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLimitsByLimitIdState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                limit_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account_id: string | null;
                        action: "notify" | "flag" | "block";
                        agent_instance_id: string | null;
                        blocked: boolean;
                        currency: string | null;
                        current: string | null;
                        evaluated_at: string | null;
                        limit_id: string;
                        metric: "spend" | "available_balance" | "quantity";
                        period_start: string | null;
                        reached: boolean;
                        remaining: string | null;
                        resets_at: string | null;
                        scope: "account" | "agent_instance" | "environment";
                        /** @description percentages of value that alert */
                        thresholds: number[];
                        unit: string | null;
                        /** @description exact decimal as text, e.g. "12.50" */
                        value: string;
                        window: "day" | "week" | "billing_period";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOutcomes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agent_key?: string;
                    anonymous_id?: string;
                    event_id?: string;
                    id?: string;
                    idempotency_key?: string;
                    metadata?: {
                        [key: string]: unknown;
                    };
                    outcome_type: string;
                    timestamp?: string;
                    user_id?: string;
                    value: number | string;
                } | {
                    agent_key?: string;
                    anonymous_id?: string;
                    event_id?: string;
                    id?: string;
                    idempotency_key?: string;
                    metadata?: {
                        [key: string]: unknown;
                    };
                    outcome_type: string;
                    timestamp?: string;
                    user_id?: string;
                    value: number | string;
                }[] | {
                    events: {
                        agent_key?: string;
                        anonymous_id?: string;
                        event_id?: string;
                        id?: string;
                        idempotency_key?: string;
                        metadata?: {
                            [key: string]: unknown;
                        };
                        outcome_type: string;
                        timestamp?: string;
                        user_id?: string;
                        value: number | string;
                    }[];
                };
                "application/msgpack": string;
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Accepted: one event sent alone, or a batch whose every event was accepted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        id: string;
                        /** @constant */
                        status: "processed";
                    } | {
                        accepted: number;
                        /** Format: date-time */
                        created_at: string;
                        rejected: number;
                        /** @description one result per event, in the order sent */
                        results: ({
                            id: string;
                            index: number;
                            /** @constant */
                            status: "processed";
                        } | {
                            error: {
                                code: string;
                                message: string;
                            };
                            index: number;
                            /** @constant */
                            status: "rejected";
                        })[];
                    };
                };
            };
            /** @description A batch in which some events were accepted and some rejected (see results) */
            207: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: number;
                        /** Format: date-time */
                        created_at: string;
                        rejected: number;
                        /** @description one result per event, in the order sent */
                        results: ({
                            id: string;
                            index: number;
                            /** @constant */
                            status: "processed";
                        } | {
                            error: {
                                code: string;
                                message: string;
                            };
                            index: number;
                            /** @constant */
                            status: "rejected";
                        })[];
                    };
                };
            };
            400: components["responses"]["EventsRejected"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["EventsUnprocessable"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPricingRatePlans: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        offset: number;
                        rate_plans: components["schemas"]["RatePlan"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPricingRatePlansByRatePlanId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rate_plan_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RatePlanWithCharges"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postPricingSimulate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    billing_period?: string;
                    rate_plan_id: string;
                    usage: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        billing_cycle: string;
                        billing_period: string;
                        charges: {
                            [key: string]: unknown;
                        }[];
                        currency: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        discount_total: string;
                        /** Format: date-time */
                        period_end: string;
                        /** Format: date-time */
                        period_start: string;
                        rate_plan_id: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        subtotal: string;
                        /** @description exact decimal as text, e.g. "12.50" */
                        total: string;
                        /** @description the same as total */
                        total_charge: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getReportsPnl: {
        parameters: {
            query?: {
                agent_id?: string;
                costs?: "blended" | "itemized";
                customer_id?: string;
                end_date?: string;
                granularity?: "week" | "month" | "quarter";
                group_by?: "agent" | "customer" | "none";
                start_date?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the same figures per period (and group key) */
                        breakdown: {
                            [key: string]: unknown;
                        }[];
                        costs_behind: boolean;
                        costs_view: "blended" | "itemized";
                        /** Format: date-time */
                        end_date: string;
                        granularity: "week" | "month" | "quarter";
                        group_by: "agent" | "customer" | "none";
                        /** Format: date-time */
                        start_date: string;
                        /** @description revenue, costs, margin and margin percent per currency */
                        totals: {
                            [key: string]: unknown;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getReportsRevenue: {
        parameters: {
            query?: {
                customer_id?: string;
                end_date?: string;
                granularity?: "week" | "month" | "quarter";
                group_by?: "agent" | "customer" | "product" | "rate_plan" | "agent_type" | "none";
                start_date?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description one entry per period, currency and group key */
                        breakdown: {
                            [key: string]: unknown;
                        }[];
                        /** Format: date-time */
                        end_date: string;
                        granularity: "week" | "month" | "quarter";
                        group_by: "agent" | "customer" | "product" | "rate_plan" | "agent_type" | "none";
                        invoice_count: number;
                        /** Format: date-time */
                        start_date: string;
                        /** @description amount per currency code */
                        total: {
                            [key: string]: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postSql: {
        parameters: {
            query?: {
                /** @description output format of a text/plain query (default JSONEachRow) */
                format?: "JSONEachRow" | "JSON" | "CSV" | "CSVWithNames" | "TSV" | "TSVWithNames" | "Parquet";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    format?: "JSONEachRow" | "JSON" | "CSV" | "CSVWithNames" | "TSV" | "TSVWithNames" | "Parquet";
                    params?: {
                        [key: string]: string | number | boolean;
                    };
                    query: string;
                };
                "text/plain": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                    "application/vnd.apache.parquet": string;
                    "application/x-ndjson": string;
                    "text/csv; charset=utf-8": string;
                    "text/tab-separated-values; charset=utf-8": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSubscriptions: {
        parameters: {
            query?: {
                account_id?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        offset: number;
                        subscriptions: components["schemas"]["Subscription"][];
                        total: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    agent_instance_ids?: string[];
                    contract_effective_date?: string;
                    /** @description minimum billed per billing period, in the currency (decimal, at most its minor units); null: none */
                    minimum_commitment?: string | number | null;
                    /** @description prepaid commitment: an amount for a term, invoiced up front or in installments, drawn down by the subscription's invoices; null: none (on a subscription: the plan's) */
                    prepaid_commitment?: {
                        /** @description the amount committed for a term, in the currency (decimal, at most its minor units); 0 on a subscription: none */
                        amount: string | number;
                        /** @description invoiced in this many equal parts, the first at the term start (default 1: up front) */
                        installments?: number;
                        /** @description a new term starts when one ends (default true) */
                        renews?: boolean;
                        /** @description length of a term in months (default 12) */
                        term_months?: number;
                    } | null;
                    rate_plan_id: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSubscriptionsBySubscriptionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postTraces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
                "application/x-protobuf": string;
            };
        };
        responses: {
            /** @description Exported; partialSuccess counts the spans rejected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        partialSuccess?: {
                            errorMessage: string;
                            rejectedSpans: number;
                        };
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description Not an OTLP ExportTraceServiceRequest */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description Missing or invalid credential */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description The credential may not send events */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description Body (or its decompressed form) too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description Content-Type or Content-Encoding not supported */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description Rate limited; retry after Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
            /** @description The events could not be stored, or the process holds as many request bodies as its memory budget allows; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description gRPC status code */
                        code?: number;
                        /** @description On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After */
                        details?: {
                            /** @constant */
                            "@type"?: "type.googleapis.com/google.rpc.RetryInfo";
                            /** @example 30s */
                            retryDelay?: string;
                        }[];
                        message?: string;
                    };
                    "application/x-protobuf": string;
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query: {
                account_id?: string;
                /** @description one agent instance (an agent secret reads its own agent's usage only) */
                agent_id?: string;
                /** @description the same as account_id */
                customer_id?: string;
                end_date: string;
                /** @description customer is the same as account */
                group_by?: "agent" | "account" | "customer" | "none";
                start_date: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhooks: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        limit: number;
                        offset: number;
                        total: number;
                        webhooks: components["schemas"]["WebhookEndpoint"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string | null;
                    events: ("invoice.created" | "invoice.paid" | "outcome.completed" | "payment.successful" | "subscription.created" | "subscription.updated" | "subscription.cancelled" | "credits.granted" | "credits.expired" | "credits.balance_low" | "credits.depleted" | "limit.threshold_reached" | "limit.exceeded" | "limit.reset" | "*")[];
                    is_active?: boolean;
                    /** @description the signing secret; one starting with whsec_ must go on with the base64 of a 24 to 64 byte key (Standard Webhooks) */
                    secret?: string;
                    url: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created_at: string;
                        description: string | null;
                        events: string[];
                        id: string;
                        is_active: boolean;
                        /** @description the signing secret, answered once */
                        secret: string;
                        /** @description the last characters of the signing secret */
                        secret_hint: string;
                        secret_rotated_at: string | null;
                        /** Format: date-time */
                        updated_at: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    postWebhooksTest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    event: "invoice.created" | "invoice.paid" | "outcome.completed" | "payment.successful" | "subscription.created" | "subscription.updated" | "subscription.cancelled" | "credits.granted" | "credits.expired" | "credits.balance_low" | "credits.depleted" | "limit.threshold_reached" | "limit.exceeded" | "limit.reset";
                    webhook_id: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt: number;
                        delivery_id: string;
                        error: string | null;
                        event_id: string;
                        next_attempt_at: string | null;
                        status: "pending" | "delivered" | "failed";
                        status_code: number | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookCreditsBalanceLow: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description the account (customer) */
                        account_id: string;
                        /** @description the available balance when the line was crossed, exact decimal text, e.g. "4.50" */
                        available: string;
                        /** @description when the watch saw the balance past the line */
                        crossed_at: string;
                        /** @description which crossing of this line it is for the account and currency (1, 2, …): one event per crossing */
                        crossing: number;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the account’s low_balance_threshold in this currency: the balance fell below it */
                        threshold: string;
                    };
                    /** @constant */
                    event: "credits.balance_low";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookCreditsDepleted: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description the account (customer) */
                        account_id: string;
                        /** @description the available balance when the line was crossed, exact decimal text, e.g. "4.50" */
                        available: string;
                        /** @description when the watch saw the balance past the line */
                        crossed_at: string;
                        /** @description which crossing of this line it is for the account and currency (1, 2, …): one event per crossing */
                        crossing: number;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description always zero ("0.00"): the available balance reached it */
                        threshold: string;
                    };
                    /** @constant */
                    event: "credits.depleted";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookCreditsExpired: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the remainder that expired, exact decimal text (positive) */
                        amount: string;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description when the credit becomes usable */
                        effective_at: string;
                        /** @description the ledger entry written (GET /v1/credits/entries) */
                        entry_id: string;
                        /** @description when what is left of it expires, else null */
                        expires_at: string | null;
                        /** @description the credit grant */
                        grant_id: string;
                        /** @description paid (a purchase) or free (promotional, goodwill) */
                        kind: "paid" | "free";
                        /** @description the expiry instant (the grant’s expires_at) */
                        occurred_at: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                    };
                    /** @constant */
                    event: "credits.expired";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookCreditsGranted: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the credit granted, exact decimal text, e.g. "100.00" */
                        amount: string;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description when the credit becomes usable */
                        effective_at: string;
                        /** @description the ledger entry written (GET /v1/credits/entries) */
                        entry_id: string;
                        /** @description when what is left of it expires, else null */
                        expires_at: string | null;
                        /** @description the credit grant */
                        grant_id: string;
                        /** @description paid (a purchase) or free (promotional, goodwill) */
                        kind: "paid" | "free";
                        /** @description when the grant became usable (created, or its purchase paid) */
                        occurred_at: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                    };
                    /** @constant */
                    event: "credits.granted";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookInvoiceCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the total as a JSON number (the spec’s field): the nearest double, so use `total` for exact arithmetic */
                        amount: number;
                        /** @description the total less the prepaid credits applied, e.g. "6.00" (docs/credits.md, Credits) */
                        amount_due?: string;
                        /** @description a correction’s credit note, else null */
                        credit_note_id: string | null;
                        /** @description that credit note’s number, else null */
                        credit_note_number: string | null;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description the invoice (or credit note) */
                        invoice_id: string;
                        /** @description invoice or credit_note */
                        kind: "invoice" | "credit_note";
                        /** @description the invoice number once finalized (INV-…), else null */
                        number: string | null;
                        /** @description a correction’s replaced invoice, else null */
                        replaces_invoice_id: string | null;
                        /** @description draft (final after the grace period) or finalized */
                        status: "draft" | "finalized";
                        /** @description the subscription it bills */
                        subscription_id: string | null;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the exact total as a decimal string in the currency’s minor units, e.g. "16.00" */
                        total: string;
                    };
                    /** @constant */
                    event: "invoice.created";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookInvoicePaid: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the total as a JSON number (the spec’s field): the nearest double, so use `total` for exact arithmetic */
                        amount: number;
                        /** @description the total less the prepaid credits applied, e.g. "6.00" (docs/credits.md, Credits) */
                        amount_due?: string;
                        /** @description a correction’s credit note, else null */
                        credit_note_id: string | null;
                        /** @description that credit note’s number, else null */
                        credit_note_number: string | null;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description the invoice (or credit note) */
                        invoice_id: string;
                        /** @description invoice or credit_note */
                        kind: "invoice" | "credit_note";
                        /** @description the invoice number once finalized (INV-…), else null */
                        number: string | null;
                        /** @description a correction’s replaced invoice, else null */
                        replaces_invoice_id: string | null;
                        /** @constant */
                        status: "paid";
                        /** @description the subscription it bills */
                        subscription_id: string | null;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the exact total as a decimal string in the currency’s minor units, e.g. "16.00" */
                        total: string;
                    };
                    /** @constant */
                    event: "invoice.paid";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookLimitExceeded: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description the account of an account limit, else null */
                        account_id: string | null;
                        /** @description what happens at 100 % */
                        action: "notify" | "flag" | "block";
                        /** @description the agent instance of an agent_instance limit, else null */
                        agent_instance_id: string | null;
                        /** @description ISO 4217 code of a money limit, else null */
                        currency: string | null;
                        /** @description when the evaluation saw it */
                        fired_at: string;
                        /** @description the spend limit (GET /v1/limits/{limit_id}) */
                        limit_id: string;
                        /** @description the limit, exact decimal text */
                        limit_value: string;
                        /** @description what the limit counts */
                        metric: "spend" | "available_balance" | "quantity";
                        /** @description the start of the limit’s period (one alert per threshold per period) */
                        period_start: string;
                        /** @description when the period ends and the limit counts from zero again */
                        resets_at: string;
                        /** @description what the limit applies to */
                        scope: "account" | "agent_instance" | "environment";
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description 100 or a listed threshold above it: the limit is reached and its action applies */
                        threshold: number;
                        /** @description the unit of a quantity limit (@action, @outcome, @user, tokens, …), else null */
                        unit: string | null;
                        /** @description the limit’s current value when the alert fired, exact decimal text */
                        value: string;
                    };
                    /** @constant */
                    event: "limit.exceeded";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookLimitReset: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description the account of an account limit, else null */
                        account_id: string | null;
                        /** @description what happens at 100 % */
                        action: "notify" | "flag" | "block";
                        /** @description the agent instance of an agent_instance limit, else null */
                        agent_instance_id: string | null;
                        /** @description ISO 4217 code of a money limit, else null */
                        currency: string | null;
                        /** @description when the evaluation saw it */
                        fired_at: string;
                        /** @description the spend limit (GET /v1/limits/{limit_id}) */
                        limit_id: string;
                        /** @description the limit, exact decimal text */
                        limit_value: string;
                        /** @description what the limit counts */
                        metric: "spend" | "available_balance" | "quantity";
                        /** @description the start of the limit’s period (one alert per threshold per period) */
                        period_start: string;
                        /** @description when the period ends and the limit counts from zero again */
                        resets_at: string;
                        /** @description what the limit applies to */
                        scope: "account" | "agent_instance" | "environment";
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description always 0: a new period began after a period in which the limit was reached */
                        threshold: number;
                        /** @description the unit of a quantity limit (@action, @outcome, @user, tokens, …), else null */
                        unit: string | null;
                        /** @description the limit’s current value when the alert fired, exact decimal text */
                        value: string;
                    };
                    /** @constant */
                    event: "limit.reset";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookLimitThresholdReached: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description the account of an account limit, else null */
                        account_id: string | null;
                        /** @description what happens at 100 % */
                        action: "notify" | "flag" | "block";
                        /** @description the agent instance of an agent_instance limit, else null */
                        agent_instance_id: string | null;
                        /** @description ISO 4217 code of a money limit, else null */
                        currency: string | null;
                        /** @description when the evaluation saw it */
                        fired_at: string;
                        /** @description the spend limit (GET /v1/limits/{limit_id}) */
                        limit_id: string;
                        /** @description the limit, exact decimal text */
                        limit_value: string;
                        /** @description what the limit counts */
                        metric: "spend" | "available_balance" | "quantity";
                        /** @description the start of the limit’s period (one alert per threshold per period) */
                        period_start: string;
                        /** @description when the period ends and the limit counts from zero again */
                        resets_at: string;
                        /** @description what the limit applies to */
                        scope: "account" | "agent_instance" | "environment";
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the percentage of the limit reached (below 100) */
                        threshold: number;
                        /** @description the unit of a quantity limit (@action, @outcome, @user, tokens, …), else null */
                        unit: string | null;
                        /** @description the limit’s current value when the alert fired, exact decimal text */
                        value: string;
                    };
                    /** @constant */
                    event: "limit.threshold_reached";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookOutcomeCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account, when it has one */
                        account_id: string | null;
                        /** @description the agent instance */
                        agent_instance_id: string;
                        /** @description for outcomes derived by an outcome rule: the rule and the action */
                        derived_from?: unknown;
                        /** @description the outcome event’s id (as sent, or generated) */
                        event_id: string;
                        /** @description the outcome type */
                        outcome_type: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description when the outcome happened */
                        timestamp: string;
                        /** @description the value as a JSON number: the nearest double, so use `value_exact` for exact arithmetic */
                        value: number;
                        /** @description the exact value as a decimal string, as stored (up to 10^18, 9 decimals) */
                        value_exact: string;
                    };
                    /** @constant */
                    event: "outcome.completed";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookPaymentSuccessful: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the total as a JSON number (the spec’s field): the nearest double, so use `total` for exact arithmetic */
                        amount: number;
                        /** @description the total less the prepaid credits applied, e.g. "6.00" (docs/credits.md, Credits) */
                        amount_due?: string;
                        /** @description a correction’s credit note, else null */
                        credit_note_id: string | null;
                        /** @description that credit note’s number, else null */
                        credit_note_number: string | null;
                        /** @description ISO 4217 code */
                        currency: string;
                        /** @description the invoice (or credit note) */
                        invoice_id: string;
                        /** @description invoice or credit_note */
                        kind: "invoice" | "credit_note";
                        /** @description the invoice number once finalized (INV-…), else null */
                        number: string | null;
                        /** @description a correction’s replaced invoice, else null */
                        replaces_invoice_id: string | null;
                        /** @constant */
                        status: "paid";
                        /** @description the subscription it bills */
                        subscription_id: string | null;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the exact total as a decimal string in the currency’s minor units, e.g. "16.00" */
                        total: string;
                    };
                    /** @constant */
                    event: "payment.successful";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionCancelled: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description the cancellation date: billing stops there (equals effective_at) */
                        cancel_date: string;
                        /** @constant */
                        change: "cancelled";
                        /** @description when the change takes effect */
                        effective_at: string;
                        /** @description the plan before a plan change (else null) */
                        from_rate_plan_id: string | null;
                        /** @description its status before the cancellation */
                        previous_status: "draft" | "active" | "paused";
                        /** @description its rate plan after the change */
                        rate_plan_id: string;
                        /** @description the reason given, else null */
                        reason: string | null;
                        /** @constant */
                        status: "cancelled";
                        /** @description the subscription */
                        subscription_id: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the plan after a plan change (else null) */
                        to_rate_plan_id: string | null;
                    };
                    /** @constant */
                    event: "subscription.cancelled";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description null (cancelled only) */
                        cancel_date: null;
                        /** @constant */
                        change: "created";
                        /** @description when the change takes effect */
                        effective_at: string;
                        /** @description the plan before a plan change (else null) */
                        from_rate_plan_id: string | null;
                        /** @description null: it did not exist */
                        previous_status: null;
                        /** @description its rate plan after the change */
                        rate_plan_id: string;
                        /** @description null (cancelled only) */
                        reason: null;
                        /**
                         * @description its status: draft (created active, a subscription.updated `activated` follows)
                         * @constant
                         */
                        status: "draft";
                        /** @description the subscription */
                        subscription_id: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the plan after a plan change (else null) */
                        to_rate_plan_id: string | null;
                    };
                    /** @constant */
                    event: "subscription.created";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description the event id, the same on every retry: deduplicate on it */
                "webhook-id": string;
                /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` */
                "webhook-signature": string;
                /** @description Unix seconds of the attempt, signed */
                "webhook-timestamp": string;
                /** @description the attempt number, from 1 */
                "X-Tally-Attempt": string;
                /** @description the delivery (one per event and endpoint) */
                "X-Tally-Delivery-Id": string;
                /** @description the event name */
                "X-Tally-Event": string;
                /** @description the event id (as webhook-id) */
                "X-Tally-Event-Id": string;
                /** @description hex HMAC-SHA256 of the raw body with the secret */
                "X-Tally-Signature": string;
                /** @description Unix seconds of the attempt (not signed by X-Tally-Signature) */
                "X-Tally-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data: {
                        /** @description its account (customer) */
                        account_id: string;
                        /** @description null (cancelled only) */
                        cancel_date: null;
                        /** @description what changed (plan_changed carries from_rate_plan_id and to_rate_plan_id) */
                        change: "activated" | "paused" | "resumed" | "renewed" | "plan_changed";
                        /** @description when the change takes effect */
                        effective_at: string;
                        /** @description the plan before a plan change (else null) */
                        from_rate_plan_id: string | null;
                        /** @description its status before the change */
                        previous_status: "draft" | "active" | "paused";
                        /** @description its rate plan after the change */
                        rate_plan_id: string;
                        /** @description null (cancelled only) */
                        reason: null;
                        /** @description its status after the change */
                        status: "draft" | "active" | "paused";
                        /** @description the subscription */
                        subscription_id: string;
                        /** @description true on test deliveries (`POST /v1/webhooks/test`) */
                        test?: boolean;
                        /** @description the plan after a plan change (else null) */
                        to_rate_plan_id: string | null;
                    };
                    /** @constant */
                    event: "subscription.updated";
                    /** @description when the event happened */
                    timestamp: string;
                };
            };
        };
        responses: {
            /** @description Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
