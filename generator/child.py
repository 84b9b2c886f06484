"""A command run for a verb (a probe, its build): its output relayed to our stderr until the user interrupts.

Ctrl-C at a terminal reaches the whole foreground process group, so a Python probe would unwind with its
own `KeyboardInterrupt` traceback before `ledger` prints its one clean line. So the child runs in a
process group of its own (Ctrl-C reaches `ledger` alone) with its output relayed through a pipe; at an
interruption `ledger` mutes the relay first, then passes the interruption on to the child's group
(SIGINT, as the terminal would have), so the child still runs its cleanups and what it prints while
dying is not shown; SIGTERM and SIGKILL follow where it does not end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

GRACE_SECONDS = 3.0  # after each signal: the time the child has to end before the next
CHUNK = 1 << 16


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    """The command's exit status; raises OSError where it cannot start. Interrupted (Ctrl-C, SIGTERM),
    it mutes the child's output, ends the child's group (SIGINT, then SIGTERM, then SIGKILL) and re-raises."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    relay = _Relay(process)
    try:
        status = process.wait()
    except BaseException:
        relay.muted = True
        _end(process)
        raise
    relay.join()
    return status


def _end(process: subprocess.Popen) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except OSError:  # the group is gone
            return
        try:
            process.wait(timeout=GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


class _Relay(threading.Thread):
    """Copies the child's output to our stderr as it comes (bytes, so progress lines with \\r pass), until muted."""

    def __init__(self, process: subprocess.Popen) -> None:
        super().__init__(daemon=True)
        self.muted = False
        self._source = process.stdout
        self.start()

    def run(self) -> None:
        assert self._source is not None
        fd = self._source.fileno()
        while chunk := os.read(fd, CHUNK):
            if not self.muted:
                _write(chunk)
        self._source.close()


def _write(chunk: bytes) -> None:
    try:
        target = getattr(sys.stderr, "buffer", None)
        if target is not None:
            target.write(chunk)
        else:  # a text stream without bytes (captured)
            sys.stderr.write(chunk.decode("utf-8", "replace"))
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: the child's output has nowhere to go
        pass
