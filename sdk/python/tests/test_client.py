"""The client's delivery logic against a local HTTP stub: batching, retries, Retry-After,
errors, the bounded buffer, thread safety."""

import _local  # noqa: F401  (first: this checkout's tally package)
import json
import socket
import threading
import time
import unittest
from decimal import Decimal
from typing import Any, List

from stub import DROP, Reply, Stub, processed
from tally import Tally, TallyBufferOverflowError, TallyDeliveryError, TallyError, TallyRejectedError


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = Stub()
        self.errors: List[TallyError] = []
        self.clients: List[Tally] = []

    def tearDown(self) -> None:
        for c in self.clients:
            c.close()
        self.stub.close()

    def client(self, **options: Any) -> Tally:
        defaults: dict = dict(api_key="sk_test_x", agent_key="as_agent", buffer_size=5, flush_interval_ms=60_000,
                              retry_base_ms=20, retry_max_ms=2000, flush_on_exit=False, on_error=self.errors.append)
        c = Tally(options.pop("base_url", self.stub.url), **{**defaults, **options})
        self.clients.append(c)
        return c

    def test_batches_by_size_and_flushes_the_rest(self):
        tally = self.client()
        ids = [tally.send_action("tool_call", metadata={"n": i}) for i in range(12)]
        self.stub.wait_for(lambda: len(self.stub.requests) == 2)
        self.assertEqual([len(r.ids) for r in self.stub.requests], [5, 5])
        tally.flush()
        self.assertEqual([len(r.ids) for r in self.stub.requests], [5, 5, 2])
        self.assertEqual(self.stub.all_ids(), ids)
        self.assertEqual(len(set(ids)), 12)
        self.assertEqual(tally.stats.delivered, 12)
        self.assertEqual(tally.stats.buffered, 0)

    def test_sends_a_partial_batch_after_the_flush_interval(self):
        tally = self.client(flush_interval_ms=100)
        started = time.monotonic()
        tally.send_action("tool_call")
        self.stub.wait_for(lambda: len(self.stub.requests) == 1, timeout=3)
        self.assertLess(time.monotonic() - started, 1.5)

    def test_request_shape_api_key(self):
        tally = self.client()
        action = tally.send_action("llm_call", user_id="u1", metadata={"model": "m", "input_tokens": 3}, timestamp="2026-11-21T10:00:00Z", event_id="a-1")
        outcome = tally.send_outcome("won", Decimal("123456789012345678.123456789"), agent_key="other")
        tally.flush()
        by_path = {r.path: r for r in self.stub.requests}
        self.assertEqual(set(by_path), {"/v1/actions", "/v1/outcomes"})
        a = by_path["/v1/actions"]
        self.assertEqual(a.headers["authorization"], "Bearer sk_test_x")
        self.assertNotIn("x-agent-secret", a.headers)
        self.assertEqual(a.headers["content-type"], "application/json")
        self.assertEqual(action, "a-1")
        self.assertEqual(a.events, [{"action_type": "llm_call", "metadata": {"model": "m", "input_tokens": 3}, "user_id": "u1", "agent_key": "as_agent", "id": "a-1", "timestamp": "2026-11-21T10:00:00Z"}])
        o = by_path["/v1/outcomes"]
        self.assertIn(b'"value":123456789012345678.123456789,', o.body)
        (event,) = json.loads(o.body, parse_float=Decimal)
        self.assertEqual(event["value"], Decimal("123456789012345678.123456789"))
        self.assertEqual(event["agent_key"], "other")
        self.assertEqual(event["id"], outcome)

    def test_agent_secret_alone_and_base_url_with_v1(self):
        tally = self.client(api_key=None, agent_key="as_secret", base_url=self.stub.url + "/v1/")
        tally.send_outcome("won", 0)
        tally.flush()
        (r,) = self.stub.requests
        self.assertEqual(r.path, "/v1/outcomes")
        self.assertEqual(r.headers["x-agent-secret"], "as_secret")
        self.assertNotIn("authorization", r.headers)
        self.assertIn(b'"value":0,', r.body)

    def test_retries_a_network_error_with_the_same_ids(self):
        self.stub.script = [DROP, DROP]
        tally = self.client()
        ids = [tally.send_action("a") for _ in range(3)]
        tally.flush()
        self.assertEqual(len(self.stub.requests), 3)
        for r in self.stub.requests:
            self.assertEqual(r.body, self.stub.requests[0].body)  # the same batch, the same ids
        self.assertEqual(self.stub.requests[0].ids, ids)
        self.assertEqual(tally.stats.retries, 2)
        self.assertEqual(tally.stats.delivered, 3)
        self.assertEqual(self.errors, [])

    def test_honours_retry_after_on_429_and_503(self):
        for status in (429, 503):
            with self.subTest(status=status):
                self.stub.requests.clear()
                self.stub.script = [Reply(status, {"error": {"code": "x", "message": "later"}}, {"retry-after": "1"})]
                tally = self.client()
                tally.send_action("a")
                tally.flush()
                first, second = self.stub.requests
                self.assertEqual(first.body, second.body)
                # The wait is the server's (1 s), not the 10-20 ms backoff.
                self.assertGreaterEqual(second.at - first.at, 0.95)
                self.assertEqual(tally.stats.retries, 1)
        self.assertEqual(self.errors, [])

    def test_backs_off_exponentially_on_5xx(self):
        self.stub.script = [Reply(500), Reply(502), Reply(500)]
        tally = self.client(retry_base_ms=100)
        tally.send_action("a")
        tally.flush()
        at = [r.at for r in self.stub.requests]
        gaps = [b - a for a, b in zip(at, at[1:])]
        self.assertEqual(len(gaps), 3)
        for gap, (lo, hi) in zip(gaps, [(0.05, 0.5), (0.1, 0.6), (0.2, 0.8)]):
            self.assertTrue(lo <= gap <= hi, gaps)

    def test_does_not_retry_a_refused_request_and_reports_the_whole_batch(self):
        self.stub.script = [Reply(401, {"error": {"code": "unauthorized", "message": "bad key"}})]
        tally = self.client()
        ids = [tally.send_action("a"), tally.send_action("b")]
        tally.flush()
        self.assertEqual(len(self.stub.requests), 1)
        self.assertEqual(tally.stats.retries, 0)
        (err,) = self.errors
        self.assertIsInstance(err, TallyDeliveryError)
        self.assertEqual((err.code, err.status, err.retryable), ("unauthorized", 401, False))
        self.assertEqual([e.id for e in err.events], ids)

    def test_does_not_retry_415(self):
        self.stub.script = [Reply(415, {"error": {"code": "unsupported_media_type", "message": "no"}})]
        tally = self.client()
        tally.send_action("a")
        tally.flush()
        self.assertEqual(len(self.stub.requests), 1)
        self.assertEqual([e.code for e in self.errors], ["unsupported_media_type"])

    def test_reports_rejected_events_of_a_batch_answer(self):
        def partial(req):
            events = req.events
            results = [{"index": 0, "id": events[0]["id"], "status": "processed"},
                       {"index": 1, "status": "rejected", "error": {"code": "validation_failed", "message": "`value` must be a decimal"}}]
            return Reply(207, {"accepted": 1, "rejected": 1, "results": results})

        self.stub.script = [partial]
        tally = self.client()
        tally.send_outcome("won", 1)
        bad = tally.send_outcome("won", -1)
        tally.flush()
        self.assertEqual(len(self.stub.requests), 1)
        (err,) = self.errors
        self.assertIsInstance(err, TallyRejectedError)
        self.assertEqual((err.code, err.status, err.event.id), ("validation_failed", 207, bad))
        self.assertEqual(err.event.body["value"], Decimal("-1"))
        self.assertEqual((tally.stats.delivered, tally.stats.rejected), (1, 1))

    def test_a_4xx_batch_answer_with_results_is_not_retried(self):
        def none_accepted(req):
            return Reply(422, {"accepted": 0, "rejected": 1, "results": [{"index": 0, "status": "rejected", "error": {"code": "unknown_agent", "message": "no agent"}}]})

        self.stub.script = [none_accepted]
        tally = self.client()
        tally.send_action("a")
        tally.flush()
        self.assertEqual(len(self.stub.requests), 1)
        self.assertEqual([(e.code, e.status) for e in self.errors], [("unknown_agent", 422)])

    def test_splits_a_batch_answered_413(self):
        self.stub.script = [Reply(413, {"error": {"code": "payload_too_large", "message": "big"}})]
        tally = self.client()
        ids = [tally.send_action("a") for _ in range(4)]
        tally.flush()
        self.assertEqual([r.ids for r in self.stub.requests], [ids, ids[:2], ids[2:]])
        self.assertEqual(tally.stats.delivered, 4)
        self.assertEqual(self.errors, [])

    def test_bounded_buffer_drops_the_oldest_while_the_service_is_down(self):
        dead = f"http://127.0.0.1:{free_port()}"
        tally = self.client(base_url=dead, buffer_size=2, max_buffered_events=4, max_retries=1, retry_base_ms=10)
        ids = [tally.send_action(f"a{i}") for i in range(7)]
        tally.flush()
        self.assertLessEqual(tally.stats.buffered, 4)
        dropped = [e.id for err in self.errors if isinstance(err, TallyBufferOverflowError) for e in err.events]
        self.assertEqual(len(dropped), 7 - tally.stats.buffered)
        # The oldest were dropped (a failed batch goes back in front of newer events, so it is dropped first).
        self.assertEqual(sorted(dropped), sorted(ids[: len(dropped)]))
        tally.close()
        (undelivered,) = [e for e in self.errors if e.code == "undelivered"]
        self.assertIsInstance(undelivered, TallyDeliveryError)
        self.assertTrue(undelivered.retryable)
        self.assertEqual([e.id for e in undelivered.events], ids[len(dropped):])

    def test_a_failed_batch_waits_for_the_next_flush(self):
        self.stub.script = [Reply(503), Reply(503)]
        tally = self.client(max_retries=1)
        ids = [tally.send_action("a") for _ in range(3)]
        tally.flush()  # two attempts, both 503: back in the buffer
        self.assertEqual(len(self.stub.requests), 2)
        self.assertEqual(tally.stats.buffered, 3)
        tally.flush()
        self.assertEqual(self.stub.requests[-1].ids, ids)
        self.assertEqual(tally.stats.delivered, 3)
        self.assertEqual(tally.stats.buffered, 0)

    def test_thread_safe_sends(self):
        tally = self.client(buffer_size=50, max_concurrent_requests=3)
        sent: List[str] = []
        lock = threading.Lock()

        def produce() -> None:
            mine = [tally.send_action("tool_call") for _ in range(400)]
            mine += [tally.send_outcome("won", Decimal("0.5")) for _ in range(100)]
            with lock:
                sent.extend(mine)

        threads = [threading.Thread(target=produce) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        tally.flush()
        received = self.stub.all_ids()
        self.assertEqual(len(received), 4000)
        self.assertEqual(sorted(received), sorted(sent))
        self.assertEqual(tally.stats.delivered, 4000)

    def test_close_is_idempotent_and_later_sends_raise(self):
        tally = self.client()
        tally.send_action("a")
        tally.close()
        tally.close()
        self.assertEqual(len(self.stub.all_ids()), 1)
        with self.assertRaises(RuntimeError):
            tally.send_action("b")

    def test_context_manager_closes(self):
        with self.client() as tally:
            tally.send_action("a")
        self.assertEqual(len(self.stub.all_ids()), 1)

    def test_flush_from_on_error_is_refused(self):
        self.stub.script = [Reply(400, {"error": {"code": "invalid_body", "message": "no"}})]
        seen: List[BaseException] = []

        def on_error(err: TallyError) -> None:
            try:
                tally.flush()
            except RuntimeError as e:
                seen.append(e)

        tally = self.client(on_error=on_error)
        tally.send_action("a")
        tally.flush()
        self.assertEqual(len(seen), 1)

    def test_invalid_arguments_raise_in_the_caller(self):
        tally = self.client()
        with self.assertRaises(TypeError):
            tally.send_action(1)  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            tally.send_outcome("won", float("nan"))
        with self.assertRaises(TypeError):
            tally.send_outcome("won", True)
        with self.assertRaises(TypeError):
            tally.send_action("a", metadata={"x": object()})
        for bad in ({"user_id": 42}, {"agent_key": 7}, {"event_id": 1}, {"timestamp": 1700000000}):
            with self.subTest(bad=bad), self.assertRaises(TypeError):
                tally.send_action("a", **bad)
        self.assertEqual(tally.stats.buffered, 0)

    def test_options_are_validated_at_construction(self):
        with self.assertRaises(ValueError) as ctx:
            Tally("ftp://x", buffer_size=0, max_retries=-1, flush_on_exit=False)
        message = str(ctx.exception)
        for part in ("api_key", "base_url", "buffer_size", "max_retries"):
            self.assertIn(part, message)
        with self.assertRaises(ValueError):
            Tally(self.stub.url, agent_key="x", buffer_size=10, max_buffered_events=5, flush_on_exit=False)


if __name__ == "__main__":
    unittest.main()
