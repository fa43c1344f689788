"""The one way kps reports an expected failure: raise KpsError (through `die`); the command line
(kps_report.cli) prints it as one line, `kps: error: ...`, and exits with its status. Progress
and warnings go through `say` and `warn` so every line the user sees has the same prefix."""
from __future__ import annotations

import sys


class KpsError(Exception):
    """An expected failure: a message for the user (one line) and the exit status.

    Status 2: bad input (an option, a file, a folder); 1: a benchmark run failed."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def die(message: str, status: int = 2):
    """Stops the command with one line of explanation (raises KpsError)."""
    raise KpsError(message, status)


def say(message: str) -> None:
    _line(sys.stdout, f"[kps] {message}")


def warn(message: str) -> None:
    _line(sys.stderr, f"kps: warning: {message}")


def _line(stream, text: str) -> None:
    """One line in one write: lines of runs on several GPUs at once never interleave."""
    stream.write(text + "\n")
    stream.flush()
