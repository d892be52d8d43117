"""One slow stream, made once and watched by every session that asks for it.

When a class opens the thread or the playground at once, thirty sessions ask for the same text.
Made thirty times over, it would share the two cores thirty ways; here the first session writes it
and the others draw what it has written so far, pass by pass, as it arrives. No Streamlit in here:
a page keeps a `SharedStream` per text in its resource cache and draws what `follow` yields.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class SharedStream(Generic[T]):
    """The items of one stream, each a fuller version of the one before, the last one whole."""

    def __init__(self, poll_seconds: float = 0.1):
        self._writing = threading.Lock()
        self._poll = poll_seconds
        self.latest: T | None = None  # the newest item so far
        self.done = False  # `latest` is the last item

    def follow(self, make: Callable[[], Iterator[T]]) -> Iterator[T]:
        """The items as they come, ending with the last one. This caller runs `make` when no one
        else is running it, and otherwise watches the caller who is. A caller that stops early
        (close the generator: `contextlib.closing`) leaves the stream to the next one, which
        starts it again."""
        shown = None
        while not self.done:
            if self._writing.acquire(blocking=False):
                try:
                    if not self.done:  # finished while this caller was taking the lock
                        for shown in make():
                            self.latest = shown
                            yield shown
                        self.done = True
                finally:
                    self._writing.release()
            else:
                while self._writing.locked() and not self.done:
                    if self.latest is not shown:
                        shown = self.latest
                        yield shown
                    time.sleep(self._poll)
        if self.latest is not shown:
            yield self.latest
