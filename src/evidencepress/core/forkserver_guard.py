"""Imported by the fork server of ``forking.lean_context`` (its preload) and nowhere else: the
server dies with the build that started it, and so its workers, which die with it (the fork
hook of ``forking``). The server is started with ``exec``, where no fork hook runs; killed with
SIGKILL, a build once left the server, its two workers and the resource tracker behind."""

from __future__ import annotations

from .forking import die_with_parent

die_with_parent(None)
