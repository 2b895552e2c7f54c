"""A client of ``pagefind --service``: Pagefind's own process, fed pages over a pipe.

The protocol (Pagefind's ``service`` module): each message, both ways, is the
base64 of a JSON object ``{"message_id": n, "payload": {"type": ...}}``
followed by a comma. Pagefind handles the messages one after another, in the
order sent, so its pages are numbered in the order they were added (a walk of
a folder would number them in the order the file system lists them, which
differs between file systems).

Messages are written by a thread of their own and the replies read by
another, so neither side ever waits on a full pipe: a page is queued and the
caller goes on rendering.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import subprocess
import tempfile
import threading
from typing import IO, Any

GET_FILES = "GetFiles"


class ServiceError(RuntimeError):
    """Pagefind answered with an error, or exited before it answered."""


class PagefindService:
    """One ``pagefind --service`` process with one index."""

    def __init__(self, binary: str, config: dict[str, Any]) -> None:
        # stderr goes to a file: a pipe nobody reads could fill up. Closed by close().
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self._process = subprocess.Popen([binary, "--service"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=self._stderr)
        except BaseException:
            self._stderr.close()
            raise
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._replies: dict[int, dict[str, Any]] = {}
        self._errors: list[str] = []
        self._answered = threading.Condition()
        self._closed = False
        self._next_id = 0
        self._threads = [threading.Thread(target=self._write, name="evidencepress-pagefind-in", daemon=True),
                         threading.Thread(target=self._read, name="evidencepress-pagefind-out", daemon=True)]
        for thread in self._threads:
            thread.start()
        self.send({"type": "NewIndex", "config": config})

    @property
    def stopped(self) -> bool:
        """Has Pagefind exited or answered with an error (nothing sent now would be read)?"""
        return self._closed or bool(self._errors)

    def send(self, payload: dict[str, Any]) -> int:
        """Queue a message; its id."""
        message_id = self._next_id
        self._next_id += 1
        message = json.dumps({"message_id": message_id, "payload": payload}).encode()
        self._outbox.put(base64.b64encode(message) + b",")
        return message_id

    def reply(self, message_id: int, timeout: float) -> dict[str, Any]:
        """The payload of the reply to ``message_id``. Raises ServiceError for an error reply (to
        it or to any earlier message) or an exit, subprocess.TimeoutExpired past ``timeout``."""
        with self._answered:
            done = self._answered.wait_for(lambda: message_id in self._replies or self._errors or self._closed,
                                           timeout)
            if self._errors:
                raise ServiceError(self._errors[0])
            if message_id in self._replies:
                return self._replies[message_id]
        if not done:
            raise subprocess.TimeoutExpired("pagefind --service", timeout)
        code = self._process.wait()
        self._stderr.seek(0)
        message = self._stderr.read().decode(errors="replace").strip()[:300]
        raise ServiceError(f"Pagefind exited with {code}: {message}")

    def close(self) -> None:
        """End the process (it holds nothing once the bundle is read; after a failure, whatever
        it is doing is not wanted) and its threads."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._outbox.put(None)
        for thread in self._threads:
            thread.join()
        self._stderr.close()

    def _write(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            while (message := self._outbox.get()) is not None:
                stdin.write(message)
                if self._outbox.empty():
                    stdin.flush()
        except (BrokenPipeError, ValueError):  # the process is gone: the reader reports it
            pass
        finally:
            with contextlib.suppress(BrokenPipeError):
                stdin.close()

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        pending = b""
        while chunk := os.read(stdout.fileno(), 1 << 20):
            *messages, pending = (pending + chunk).split(b",")
            for message in messages:
                try:
                    reply = json.loads(base64.b64decode(message))
                except ValueError:
                    reply = {"payload": {"type": "Error", "message": "a reply that is not base64 JSON"}}
                self._receive(reply)
        stdout.close()
        with self._answered:
            self._closed = True
            self._answered.notify_all()

    def _receive(self, reply: dict[str, Any]) -> None:
        payload = reply.get("payload", {})
        with self._answered:
            if payload.get("type") == "Error":
                self._errors.append(f"Pagefind: {payload.get('message', 'an unknown error')}")
            elif isinstance(reply.get("message_id"), int) and payload.get("type") == GET_FILES:
                self._replies[reply["message_id"]] = payload  # the only reply anyone waits for
            self._answered.notify_all()
