"""A text is written once however many sessions ask for it at the same time."""
from __future__ import annotations

import threading
import time
from contextlib import closing

from ui.shared_stream import SharedStream

ITEMS = 6


def counting_stream(calls: list[int]):
    """A maker that counts its runs: items 1..ITEMS."""
    def make():
        calls.append(1)
        yield from range(1, ITEMS + 1)
    return make


def test_one_caller_gets_every_item_and_later_ones_the_last_at_once():
    calls: list[int] = []
    shared = SharedStream()
    assert list(shared.follow(counting_stream(calls))) == list(range(1, ITEMS + 1))
    assert shared.done and shared.latest == ITEMS
    assert list(shared.follow(counting_stream(calls))) == [ITEMS]
    assert len(calls) == 1


def test_callers_at_the_same_time_share_one_run_and_watch_it_grow():
    """Four sessions ask at once: one writes, three watch. The maker writes each item only once
    every session has seen the one before (as a pass of the model takes longer than a watcher's
    poll), so each must see the stream grow item by item, whichever thread the machine runs."""
    calls: list[int] = []
    shared = SharedStream(poll_seconds=0.005)
    seen: dict[int, list[int]] = {k: [] for k in range(4)}
    start = threading.Barrier(4)

    def all_have_seen(n: int) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if all(items and items[-1] >= n for items in seen.values()):
                return True
            time.sleep(0.001)
        return False

    waited_out: list[int] = []

    def make():
        calls.append(1)
        for n in range(1, ITEMS + 1):
            if n > 1 and not all_have_seen(n - 1):
                waited_out.append(n - 1)
            yield n

    def session(k: int) -> None:
        start.wait()
        for item in shared.follow(make):
            seen[k].append(item)

    threads = [threading.Thread(target=session, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive()
    assert len(calls) == 1  # made once, for all four
    assert waited_out == []  # every session saw each item before the next was made
    for items in seen.values():
        assert items == list(range(1, ITEMS + 1))  # every item, in order, none twice


def test_a_caller_who_stops_leaves_the_stream_to_the_next_one():
    calls: list[int] = []
    shared = SharedStream()
    with closing(shared.follow(counting_stream(calls))) as items:
        assert [next(items), next(items)] == [1, 2]  # then the session reruns
    assert not shared.done
    assert list(shared.follow(counting_stream(calls))) == list(range(1, ITEMS + 1))  # not stuck
    assert len(calls) == 2 and shared.done


def test_a_restarted_stream_takes_no_one_back_to_its_beginning():
    """A watcher whose writer stops takes over the writing. The new run makes the items the
    last one made again; neither that watcher nor anyone reading `latest` sees them twice."""
    calls: list[int] = []
    newest_while_remade: list[int] = []
    shared = SharedStream(poll_seconds=0.001)

    def remake():
        calls.append(1)
        for n in range(1, ITEMS + 1):
            if len(calls) == 2:
                newest_while_remade.append(shared.latest)
            yield n

    first = shared.follow(remake)
    assert [next(first), next(first), next(first), next(first)] == [1, 2, 3, 4]
    watcher = shared.follow(remake)
    assert next(watcher) == 4  # the writer holds the stream: the watcher sees how far it got
    first.close()  # the writer's session reruns
    assert list(watcher) == [5, 6]  # the watcher writes it now, on from where it was
    assert len(calls) == 2 and shared.done and shared.latest == ITEMS
    assert newest_while_remade == [4, 4, 4, 4, 4, 5]  # read before each item: never back to 1


def test_a_shorter_rerun_still_ends_with_its_own_last_item():
    """Runs of one stream repeat each other within a server; should one still end sooner, its
    last item is the stream's end, for its caller and for everyone after."""
    runs = iter([range(1, ITEMS + 1), ["a", "b"]])
    shared = SharedStream()
    with closing(shared.follow(lambda: iter(next(runs)))) as first:
        assert [next(first), next(first), next(first)] == [1, 2, 3]
    assert list(shared.follow(lambda: iter(next(runs)))) == ["a", "b"]
    assert shared.done and shared.latest == "b"
    assert list(shared.follow(lambda: iter(next(runs)))) == ["b"]
