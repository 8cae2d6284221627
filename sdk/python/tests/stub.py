"""A local HTTP server standing in for Tally's event endpoints in unit tests: it records
every request and answers from a script (then 200 with every event processed)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Union


@dataclass
class Request:
    path: str
    headers: Dict[str, str]
    body: bytes
    at: float

    @property
    def events(self) -> List[Dict[str, Any]]:
        return json.loads(self.body)

    @property
    def ids(self) -> List[str]:
        return [e["id"] for e in self.events]


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: Dict[str, str] = field(default_factory=dict)


DROP = "drop"  # close the connection without an answer (a network error)
Script = Union[Reply, str, Callable[[Request], Union[Reply, str]]]


def processed(req: Request) -> Reply:
    events = req.events
    return Reply(200, {"accepted": len(events), "rejected": 0, "results": [{"index": i, "id": e["id"], "status": "processed"} for i, e in enumerate(events)]})


class Stub:
    def __init__(self) -> None:
        self.requests: List[Request] = []
        self.script: List[Script] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                with stub._lock:
                    stub.requests.append(req)
                    step: Script = stub.script.pop(0) if stub.script else processed
                reply = step(req) if callable(step) else step
                if reply == DROP:
                    self.close_connection = True
                    self.connection.close()
                    return
                assert isinstance(reply, Reply)
                data = b"" if reply.body is None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for k, v in {"content-type": "application/json", **reply.headers}.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def all_ids(self) -> List[str]:
        return [i for r in self.requests for i in r.ids]

    def wait_for(self, done: Callable[[], bool], timeout: float = 5.0) -> None:
        until = time.monotonic() + timeout
        while not done():
            if time.monotonic() > until:
                raise AssertionError(f"timed out; {len(self.requests)} requests")
            time.sleep(0.01)
