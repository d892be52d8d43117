"""One slow stream, made once and watched by every session that asks for it.

When a class opens the thread or the playground at once, thirty sessions ask for the same text.
Made thirty times over, it would share the two cores thirty ways; here the first session writes it
and the others draw what it has written so far, pass by pass, as it arrives. No Streamlit in here:
a page keeps a `SharedStream` per text in its resource cache and draws what `follow` yields.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Generator, Generic, Iterator, TypeVar

T = TypeVar("T")


class SharedStream(Generic[T]):
    """The items of one stream, each a fuller version of the one before, the last one whole."""

    def __init__(self, poll_seconds: float = 0.1):
        self._writing = threading.Lock()
        self._poll = poll_seconds
        # (n, the n-th item) of the furthest run so far, set in one step so that a watcher never
        # reads a count with another run's item
        self._newest: tuple[int, T | None] = (0, None)
        self.done = False  # `latest` is the last item

    @property
    def latest(self) -> T | None:
        """The newest item so far."""
        return self._newest[1]

    def follow(self, make: Callable[[], Iterator[T]]) -> Iterator[T]:
        """The items as they come, ending with the last one, each fuller than the one before.
        This caller runs `make` when no one else is running it, and otherwise watches the caller
        who is. A caller that stops early (close the generator: `contextlib.closing`) leaves the
        stream to the next one, which starts it again from the beginning; the items a run repeats
        from the one before are not shown again to anyone who has seen them."""
        shown = 0  # how far into the stream this caller has seen
        while not self.done:
            if self._writing.acquire(blocking=False):
                try:
                    if not self.done:  # finished while this caller was taking the lock
                        shown = yield from self._write(make, shown)
                finally:
                    self._writing.release()
            else:
                while self._writing.locked() and not self.done:
                    n, item = self._newest
                    if n > shown:
                        shown = n
                        yield item
                    time.sleep(self._poll)
        if self._newest[0] > shown:
            yield self.latest

    def _write(self, make: Callable[[], Iterator[T]], shown: int) -> Generator[T, None, int]:
        """Run the stream, sharing each item beyond the furthest run so far; returns how far
        this caller has seen."""
        n, item = 0, None
        for n, item in enumerate(make(), start=1):
            if n > self._newest[0]:
                self._newest = (n, item)
            if n > shown:
                shown = n
                yield item
        if n < self._newest[0]:  # a run shorter than the last one: its end is the end all the same
            self._newest = (self._newest[0] + 1, item)
            if shown == n:  # and this caller has it
                shown = self._newest[0]
        self.done = True
        return shown
