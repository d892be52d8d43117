"""What the server keeps between sessions is bounded, and a round asked for by several sessions
at once is made once (README, "Teaching a class")."""
from __future__ import annotations

import threading
import time

import pytest

from ui import models, playground, thread

# (cached function, arguments for the n-th distinct entry, how many entries the README promises)
BOUNDED = [
    (playground.play_stream, lambda n: ("nimbus-mini", f"prompt {n}", 4, 1.0, 1.0, 0.0, n), 128),
    (thread.reply_stream, lambda n: ("nimbus-mini", f"message {n}", n), 64),
]


@pytest.mark.parametrize("cached, key, bound", BOUNDED, ids=["playground texts", "thread replies"])
def test_a_shared_text_cache_keeps_its_last_entries_and_no_more(cached, key, bound):
    cached.clear()
    first = [cached(*key(n)) for n in range(bound)]
    assert all(cached(*key(n)) is first[n] for n in range(bound))  # all still held
    cached(*key(bound))  # one more: the least recently asked for goes
    assert cached(*key(0)) is not first[0]
    cached.clear()


@pytest.fixture
def counted_rounds(monkeypatch):
    """`ui.models._round` with the models and the round itself stood in for: each build is
    counted, and takes a moment, as a real one takes seconds."""
    built: list[tuple] = []

    def build(pair, prompt, gamma, seed, pass_costs):
        built.append((prompt, gamma, seed))
        time.sleep(0.2)
        return object()

    monkeypatch.setattr(models, "_pair", lambda drafter: drafter)
    monkeypatch.setattr(models, "_pass_costs", lambda pair, prompt, gamma: (0.0, 0.0))
    monkeypatch.setattr(models, "build_scenario", build)
    models._round.clear()
    yield built
    models._round.clear()


def test_the_walkthrough_keeps_its_last_64_rounds(counted_rounds, monkeypatch):
    monkeypatch.setattr(time, "sleep", lambda s: None)
    made = [models._round("nimbus-mini", "p", 4, seed) for seed in range(64)]
    assert [models._round("nimbus-mini", "p", 4, seed) for seed in range(64)] == made
    assert len(counted_rounds) == 64
    models._round("nimbus-mini", "p", 4, 64)
    models._round("nimbus-mini", "p", 4, 0)  # the least recently asked for was let go: made again
    assert len(counted_rounds) == 66


def test_a_round_asked_for_by_several_sessions_at_once_is_made_once(counted_rounds):
    start, got = threading.Barrier(4), []

    def session() -> None:
        start.wait()
        got.append(models._round("nimbus-mini", "p", 4, 7))

    threads = [threading.Thread(target=session) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive()
    assert len(counted_rounds) == 1
    assert len(got) == 4 and all(r is got[0] for r in got)


def test_passes_are_counted_by_the_thread_that_made_them():
    """A race asks how many passes other sessions (threads) made while it ran: its own passes
    never count, another thread's always do."""
    import torch

    from ui.server_load import PassCounter
    counter, model = PassCounter(), torch.nn.Linear(2, 2)
    counter.attach(model)
    x = torch.zeros(1, 2)
    model(x), model(x)  # two passes of this thread's own
    assert counter.by_others() == 0
    elsewhere: list[int] = []

    def other_session():
        for _ in range(3):
            model(x)
        elsewhere.append(counter.by_others())

    worker = threading.Thread(target=other_session)
    worker.start()
    worker.join()
    assert counter.by_others() == 3 and elsewhere == [2]


def test_the_shared_target_counts_its_passes():
    """The passes a race compares are the loaded Nimbus-large's own."""
    import torch

    from ui.server_load import TARGET_PASSES
    target, _ = models._target()
    before = TARGET_PASSES.by_others()
    worker = threading.Thread(target=lambda: target(input_ids=torch.tensor([[1, 2, 3]], device=target.device)))
    worker.start()
    worker.join()
    assert TARGET_PASSES.by_others() == before + 1
