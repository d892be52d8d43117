"""The thread's reply is written once however many sessions ask for it at the same time."""
from __future__ import annotations

import threading
import time
from contextlib import closing

from ui.shared_stream import SharedStream

ITEMS = 6


def counting_stream(calls: list[int], pause: float = 0.0):
    """A maker that counts its runs: items 1..ITEMS, each after `pause` seconds."""
    def make():
        calls.append(1)
        for n in range(1, ITEMS + 1):
            time.sleep(pause)
            yield n
    return make


def test_one_caller_gets_every_item_and_later_ones_the_last_at_once():
    calls: list[int] = []
    shared = SharedStream()
    assert list(shared.follow(counting_stream(calls))) == list(range(1, ITEMS + 1))
    assert shared.done and shared.latest == ITEMS
    assert list(shared.follow(counting_stream(calls))) == [ITEMS]
    assert len(calls) == 1


def test_callers_at_the_same_time_share_one_run_and_watch_it_grow():
    calls: list[int] = []
    shared = SharedStream(poll_seconds=0.005)
    seen: dict[int, list[int]] = {}
    start = threading.Barrier(4)

    def session(k: int) -> None:
        start.wait()
        seen[k] = list(shared.follow(counting_stream(calls, pause=0.1)))

    threads = [threading.Thread(target=session, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(calls) == 1  # made once, for all four
    assert len(seen) == 4
    for items in seen.values():
        assert items[-1] == ITEMS and items == sorted(set(items))  # growing, ending whole
        assert len(items) >= 3  # the three who watched saw it grow, not only the end


def test_a_caller_who_stops_leaves_the_stream_to_the_next_one():
    calls: list[int] = []
    shared = SharedStream()
    with closing(shared.follow(counting_stream(calls))) as items:
        assert [next(items), next(items)] == [1, 2]  # then the session reruns
    assert not shared.done
    assert list(shared.follow(counting_stream(calls))) == list(range(1, ITEMS + 1))  # not stuck
    assert len(calls) == 2 and shared.done
