"""Passes of Nimbus-large made on this server, counted by the thread that made them, so that a race
can tell whether other sessions used the machine while it ran: each side's clock counts the time
that took too. No Streamlit in here."""
from __future__ import annotations

import threading
from collections import Counter


class PassCounter:
    """Counts the forward passes of the models it is attached to, per calling thread (Streamlit
    runs each session's script in a thread of its own)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._by_thread: Counter[int] = Counter()

    def attach(self, model) -> None:
        model.register_forward_hook(self._count)

    def _count(self, module, args, output) -> None:
        with self._lock:
            self._by_thread[threading.get_ident()] += 1

    def by_others(self) -> int:
        """Passes made so far by every thread but the caller's."""
        me = threading.get_ident()
        with self._lock:
            return sum(self._by_thread.values()) - self._by_thread[me]


# Nimbus-large's passes, by every session of this server
TARGET_PASSES = PassCounter()
