"""Events still buffered when the interpreter exits are flushed by the atexit hook."""

import _local  # noqa: F401  (first: this checkout's tally package)
import json
import os
import subprocess
import sys
import textwrap
import unittest

from stub import Stub
from test_client import free_port

SCRIPT = """
import sys
from decimal import Decimal
from tally import Tally

tally = Tally(sys.argv[1], api_key="sk_test_x", agent_key="as_agent", flush_interval_ms=600_000,
              max_retries=0, flush_on_exit=sys.argv[2] == "on",
              on_error=lambda e: print("error", e.code, len(e.events), flush=True))
ids = [tally.send_action("tool_call") for _ in range(3)] + [tally.send_outcome("won", Decimal("0.000000001"))]
print("ids", *ids, flush=True)
if sys.argv[3] == "raise":
    raise RuntimeError("the agent crashed")
if sys.argv[3] == "exit":
    sys.exit(3)
"""


def run(url: str, flush_on_exit: str, how: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": _local.PACKAGE_ROOT}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), url, flush_on_exit, how],
                          env=env, capture_output=True, text=True, timeout=30)


def printed_ids(out: str):
    return next(line.split()[1:] for line in out.splitlines() if line.startswith("ids "))


class ExitFlushTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = Stub()

    def tearDown(self) -> None:
        self.stub.close()

    def test_flushes_at_exit(self):
        for how, code in [("end", 0), ("raise", 1), ("exit", 3)]:
            with self.subTest(how=how):
                self.stub.requests.clear()
                p = run(self.stub.url, "on", how)
                self.assertEqual(p.returncode, code, p.stderr)
                self.assertEqual(sorted(self.stub.all_ids()), sorted(printed_ids(p.stdout)))
                self.assertEqual(len(self.stub.all_ids()), 4)
                self.assertIn(b'"value":0.000000001,', next(r.body for r in self.stub.requests if r.path == "/v1/outcomes"))

    def test_without_flush_on_exit_nothing_is_sent(self):
        p = run(self.stub.url, "off", "end")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.stub.requests, [])

    def test_exits_promptly_and_reports_when_the_service_is_down(self):
        p = run(f"http://127.0.0.1:{free_port()}", "on", "end")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("error undelivered 4", p.stdout)


if __name__ == "__main__":
    unittest.main()
