"""Spend limits through the Family A API (README "Stopping runaway spend",
docs/spend-limits.md): ``tally.spend_limits``.

The same calls as the TypeScript SDK's ``tally.spendLimits`` (sdk/src/spend-limits.ts).
Needs an API key that may read (lists, states, alerts) and write (create, update, delete);
an agent reads its own limits with ``tally.limits()``. Answers are the service's JSON as
dicts, values decimal text; pass ``value`` as ``Decimal``, ``int`` or decimal ``str``. An
answer other than 2xx raises :class:`TallyApiError`; reads are retried like event batches,
changes are sent once.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .api import ApiGroup, Money
from .api import fields as _fields
from .api import money as _money
from .api import seg as _seg

_UNSET: Any = object()


class TallySpendLimits(ApiGroup):
    """Spend limits: create, list, read, change, delete, their states and their alerts."""

    def create(
        self,
        scope: str,
        metric: str,
        value: Money,
        *,
        account_id: Optional[str] = None,
        agent_instance_id: Optional[str] = None,
        currency: Optional[str] = None,
        unit: Optional[str] = None,
        window: Optional[str] = None,
        thresholds: Optional[List[int]] = None,
        action: Optional[str] = None,
        description: Optional[str] = None,
    ) -> Dict[str, Any]:
        """A limit (``scope`` ``"account"``, ``"agent_instance"`` or ``"environment"``;
        ``metric`` ``"spend"``, ``"available_balance"`` or ``"quantity"``; ``action``
        ``"notify"`` (default), ``"flag"`` or ``"block"``)."""
        body = _fields(scope=scope, account_id=account_id, agent_instance_id=agent_instance_id, metric=metric, currency=currency, unit=unit,
                       window=window, value=_money(value), thresholds=thresholds, action=action, description=description)
        return self._call("POST", "/limits", body=body, retry=False)

    def list(self, *, account_id: Optional[str] = None, agent_instance_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        """``{"limits": [...], "total", "limit", "offset"}``."""
        return self._call("GET", "/limits", query=_fields(account_id=account_id, agent_instance_id=agent_instance_id, limit=limit, offset=offset), retry=True)

    def get(self, limit_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/limits/{_seg(limit_id)}", retry=True)

    def update(
        self,
        limit_id: str,
        *,
        value: Optional[Money] = None,
        thresholds: Optional[List[int]] = None,
        action: Optional[str] = None,
        description: Optional[str] = _UNSET,
    ) -> Dict[str, Any]:
        """Changes what is given (``description=None`` clears it). Raising a reached ``block``
        limit, or changing its action, unblocks on the next evaluation."""
        body = _fields(value=_money(value), thresholds=thresholds, action=action)
        if description is not _UNSET:
            body["description"] = description
        return self._call("PATCH", f"/limits/{_seg(limit_id)}", body=body, retry=False)

    def delete(self, limit_id: str) -> Dict[str, Any]:
        """It blocks, flags and alerts no more; the alerts it fired stay listed."""
        return self._call("DELETE", f"/limits/{_seg(limit_id)}", retry=False)

    def state(self, limit_id: str) -> Dict[str, Any]:
        """Where it stands: ``current``, ``remaining``, ``reached``, ``blocked``, ``resets_at``."""
        return self._call("GET", f"/limits/{_seg(limit_id)}/state", retry=True)

    def account_states(self, account_id: str) -> Dict[str, Any]:
        """The states of an account's limits (and of its environment's)."""
        return self._call("GET", f"/accounts/{_seg(account_id)}/limits", retry=True)

    def list_alerts(self, *, limit_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        """The alerts limits fired, with when and at what value: ``{"alerts": [...], "total", ...}``."""
        return self._call("GET", "/limit-alerts", query=_fields(limit_id=limit_id, limit=limit, offset=offset), retry=True)
