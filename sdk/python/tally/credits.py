"""Prepaid credits through the Family A API (docs/credits.md, Credits): ``tally.credits``.

The same calls as the TypeScript SDK's ``tally.credits`` (sdk/src/credits.ts). Answers are
the service's JSON as dicts; money is decimal text (``"100.00"``), never a float. Pass
amounts as ``Decimal``, ``int`` or decimal ``str``.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Dict, Mapping, Optional, Union

from .api import ApiGroup, ApiTransport, Money
from .api import fields as _fields
from .api import iso_time as _time
from .api import money as _money
from .api import seg as _seg

#: How the credits calls reach the service (the one API transport).
CreditsTransport = ApiTransport

class TallyCredits(ApiGroup):
    """Prepaid credits: grants, balance, ledger entries, adjustments, the low-balance
    threshold and top-ups. Needs an API key that may read and write (``api_key``);
    :meth:`agent_balance` needs the agent secret (``agent_key``). An answer other than 2xx
    raises :class:`TallyApiError`. Reads and grants (sent with an Idempotency-Key, a random
    one when none is given) are retried like event batches; other changes are sent once."""

    def grant(
        self,
        account_id: str,
        currency: str,
        kind: str,
        amount: Money,
        *,
        idempotency_key: Optional[str] = None,
        price: Optional[Money] = None,
        priority: Optional[int] = None,
        effective_at: Union[str, datetime, None] = None,
        expires_at: Union[str, datetime, None] = None,
        scope: Optional[Mapping[str, Any]] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        usable: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Grants credits (``kind`` ``"paid"`` or ``"free"``); a retry with the same
        ``idempotency_key`` grants once (the first grant is answered)."""
        body = _fields(account_id=account_id, currency=currency, kind=kind, amount=_money(amount), price=_money(price), priority=priority,
                       effective_at=_time(effective_at), expires_at=_time(expires_at), scope=scope, metadata=metadata, usable=usable)
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        return self._call("POST", "/credits/grants", body=body, headers={"idempotency-key": key}, retry=True)

    def list_grants(self, *, account_id: Optional[str] = None, currency: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        """``{"grants": [...], "total", "limit", "offset"}``."""
        return self._call("GET", "/credits/grants", query=_fields(account_id=account_id, currency=currency, limit=limit, offset=offset), retry=True)

    def get_grant(self, grant_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/credits/grants/{_seg(grant_id)}", retry=True)

    def void_grant(self, grant_id: str, reason: Optional[str] = None) -> Dict[str, Any]:
        """Voids what is left of a grant (a ``void`` entry); a grant already void: 409."""
        return self._call("POST", f"/credits/grants/{_seg(grant_id)}/void", body=_fields(reason=reason), retry=False)

    def balance(self, account_id: str, *, at: Union[str, datetime, None] = None) -> Dict[str, Any]:
        """The account's balance per currency: live (pending usage counted) now, or the ledger's at ``at``."""
        return self._call("GET", f"/accounts/{_seg(account_id)}/credits/balance", query=_fields(at=_time(at)), retry=True)

    def list_entries(
        self,
        *,
        account_id: Optional[str] = None,
        grant_id: Optional[str] = None,
        invoice_id: Optional[str] = None,
        type: Optional[str] = None,
        from_: Union[str, datetime, None] = None,
        to: Union[str, datetime, None] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Ledger entries in the order written: ``{"entries": [...], "total", "limit", "offset"}``;
        ``from_``/``to`` filter on ``occurred_at``."""
        q = _fields(account_id=account_id, grant_id=grant_id, invoice_id=invoice_id, type=type, to=_time(to), limit=limit, offset=offset)
        q.update(_fields(**{"from": _time(from_)}))
        return self._call("GET", "/credits/entries", query=q, retry=True)

    def adjust(self, grant_id: str, amount: Money, reason: str) -> Dict[str, Any]:
        """A manual adjustment (+/-) of a grant with its reason: an ``adjustment`` entry."""
        return self._call("POST", "/credits/adjustments", body={"grant_id": grant_id, "amount": _money(amount), "reason": reason}, retry=False)

    def refund(self, grant_id: str, amount: Money, reason: str) -> Dict[str, Any]:
        """Pays back paid account credit: a ``refund`` entry (-)."""
        return self._call("POST", "/credits/refunds", body={"grant_id": grant_id, "amount": _money(amount), "reason": reason}, retry=False)

    def set_low_balance_threshold(self, account_id: str, currency: str, threshold: Optional[Money]) -> Dict[str, Any]:
        """Sets (or, with None, removes) the account's low-balance threshold in a currency (``credits.balance_low``)."""
        body = {"currency": currency, "low_balance_threshold": _money(threshold)}
        return self._call("PUT", f"/accounts/{_seg(account_id)}/credits/settings", body=body, retry=False)

    def settings(self, account_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/accounts/{_seg(account_id)}/credits/settings", retry=True)

    def create_topup(
        self,
        account_id: str,
        currency: str,
        type: str,
        *,
        kind: Optional[str] = None,
        amount: Optional[Money] = None,
        price: Optional[Money] = None,
        target_balance: Optional[Money] = None,
        threshold: Optional[Money] = None,
        interval: Optional[str] = None,
        starts_at: Union[str, datetime, None] = None,
        priority: Optional[int] = None,
        usable: Optional[str] = None,
        expires_after_days: Optional[int] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """A top-up rule: ``type`` ``"recurring"`` (``interval``, ``amount``) or ``"threshold"``
        (``threshold``, and ``amount`` or ``target_balance``)."""
        body = _fields(account_id=account_id, currency=currency, type=type, kind=kind, amount=_money(amount), price=_money(price),
                       target_balance=_money(target_balance), threshold=_money(threshold), interval=interval, starts_at=_time(starts_at),
                       priority=priority, usable=usable, expires_after_days=expires_after_days, metadata=metadata)
        return self._call("POST", "/credits/topups", body=body, retry=False)

    def list_topups(self, *, account_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        return self._call("GET", "/credits/topups", query=_fields(account_id=account_id, limit=limit, offset=offset), retry=True)

    def get_topup(self, topup_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/credits/topups/{_seg(topup_id)}", retry=True)

    def cancel_topup(self, topup_id: str) -> Dict[str, Any]:
        """Stops a top-up rule (what it granted stays)."""
        return self._call("POST", f"/credits/topups/{_seg(topup_id)}/disable", retry=False)

    def agent_balance(self) -> Dict[str, Any]:
        """The calling agent's account's available credit per currency (the client's ``agent_key``)."""
        return self._call("GET", "/agents/me/credit-balance", as_agent=True, retry=True)
