"""Named points where a test can hold the server still, so that a fault (a kill) lands exactly there.

Off unless the environment says otherwise: ``WEBNB_PAUSE_AT=corpus-write:/tmp/marker`` makes the first process
that reaches ``pause_at("corpus-write")`` write its pid to ``/tmp/marker`` and wait there, inside the open
transaction, for the kill the test sends when it sees the marker. Nothing else changes, and without the variable
``pause_at`` returns at once.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

PAUSE_SECONDS = 120  # long enough for any test to kill; the server then goes on as if nothing happened


def pause_at(point: str) -> None:
    setting = os.environ.get("WEBNB_PAUSE_AT", "")
    name, _, marker = setting.partition(":")
    if name != point or not marker:
        return
    Path(marker).write_text(str(os.getpid()))
    threading.Event().wait(PAUSE_SECONDS)
