"""Nimbus-mini: the shipped drafter, a tiny training run that learns, and the quality ladder."""
from __future__ import annotations

import json

import numpy as np
import pytest

from specdec_core.distill.corpus import GREEDY_AFTER, build_corpus, load_corpus, shard_mode
from specdec_core.distill.train import select_vocab, train
from specdec_core.engine import generate
from specdec_core.catalog import ASSETS, drafter_names
from specdec_core.quality import text_overlap

SHIPPED = ("nimbus-mini", "nimbus-mini-early")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_drafter_is_safetensors_and_small(name):
    folder = ASSETS / name
    files = {f.name for f in folder.iterdir()}
    assert {"config.json", "model.safetensors"} <= files
    assert all(f.endswith((".json", ".safetensors", ".md")) for f in files)
    total = sum(f.stat().st_size for f in folder.iterdir())
    assert total < 50 * 2**20
    card = json.loads((folder / "config.json").read_text())
    assert card["recipe"]["layers"] >= 1 and card["reduced_vocab"] == card["recipe"]["vocab"]
    assert not card["llama"].get("_name_or_path")  # the folder it was trained in means nothing elsewhere


def test_shipped_drafter_shares_the_target_vocabulary_and_embeddings(pair, pair_named):
    mini = pair_named("nimbus-mini")
    vocab_map = mini.drafter.vocab_map.numpy()
    assert mini.drafter.config.vocab_size == pair.vocab_size
    assert vocab_map.min() >= 0 and vocab_map.max() < pair.vocab_size
    assert len(np.unique(vocab_map)) == len(vocab_map)
    assert pair.tokenizer.eos_token_id in vocab_map  # the draft can propose ending a reply
    assert mini.drafter.model.embed_tokens is mini.target.model.embed_tokens  # shared, not stored


def test_tiny_training_run_lowers_the_loss(pair, tmp_path):
    """A seeded miniature of the real recipe: 4 texts of 12 tokens, 1 layer, 512-token head."""
    paths = build_corpus(pair.target, pair.tokenizer, tmp_path, shards=1, batch=4, new_tokens=12,
                         seed=5, log=lambda *a, **k: None)
    shards = load_corpus(paths)
    assert shards[0]["top_p"].shape[:2] == (4, 12)
    vocab = select_vocab(shards, 512, pair.tokenizer.eos_token_id, pair.vocab_size)
    assert len(vocab) == 512 and pair.tokenizer.eos_token_id in vocab.tolist()
    _, history = train(pair.target, shards, layers=1, vocab=512, epochs=12, lr=3e-3,
                       tv_weight=1.0, seed=0, rows=2, log=lambda *a, **k: None)
    losses = [loss for _, loss, _ in history]
    assert len(losses) == 24
    assert np.mean(losses[-4:]) < 0.8 * np.mean(losses[:4])
    assert history[-1][2] > history[0][2]  # the overlap with p grew


def test_the_script_reproduces_its_drafter_from_nothing(pair, tmp_path):
    """`python -m specdec_core.distill all` on tiny settings, twice from nothing with the same
    seed: each run writes a drafter and its early checkpoint that load beside Nimbus-large, with
    the recipe and validation figures in the config, and the two runs write the same weights."""
    from specdec_core.distill.__main__ import main
    from specdec_core.drafters import load_nimbus_mini

    configs = []
    for run in ("a", "b"):
        main(["all", "--data", str(tmp_path / run / "data"), "--out", str(tmp_path / run / "final"),
              "--early-out", str(tmp_path / run / "early"), "--shards", "1", "--val-shards", "1",
              "--batch", "2", "--new-tokens", "6", "--layers", "1", "--vocab", "64", "--epochs", "2",
              "--seed", "3"])
        for folder in ("final", "early"):
            config = json.loads((tmp_path / run / folder / "config.json").read_text())
            drafter = load_nimbus_mini(tmp_path / run / folder, pair.target)
            assert len(drafter.vocab_map) == 64 and drafter.model.config.num_hidden_layers == 1
            assert config["recipe"]["seed"] == 3 and 0 < config["val_overlap_topk"] < 1
            assert (config["checkpoint"] == "final") == (folder == "final")
            configs.append(config)
    assert [c["sha256"] for c in configs[:2]] == [c["sha256"] for c in configs[2:]]
    assert configs[0]["sha256"] != configs[1]["sha256"]  # the early checkpoint is another model


def test_the_reduced_head_keeps_the_tokens_with_the_most_target_mass():
    """Two hand-made shards (top-2 ids and their p at each position): mass 7: 1.0, 3: 0.9,
    5: 0.6, 2: 0.3, 9: 0.2; a head of 3 keeps 7 and 3, and end-of-text (id 0, no mass) always."""
    shards = [{"top_ids": np.array([[[7, 3], [5, 2]]]), "top_p": np.array([[[0.6, 0.4], [0.6, 0.3]]])},
              {"top_ids": np.array([[[7, 3], [9, 1]]]), "top_p": np.array([[[0.4, 0.5], [0.2, 0.0]]])}]
    assert select_vocab(shards, 3, eos_id=0, vocab_size=10).tolist() == [0, 3, 7]
    assert select_vocab(shards, 5, eos_id=0, vocab_size=10).tolist() == [0, 2, 3, 5, 7]


def test_greedy_shards_follow_the_argmax_after_a_sampled_start(pair, tmp_path):
    """In a greedy shard every token after the sampled start is the target's most likely one;
    in a sampled shard some are not (12 tokens x 4 texts at temperature 1)."""
    assert [shard_mode(i, 3) for i in range(6)] == ["sample", "sample", "greedy"] * 2
    quiet = {"log": lambda *a, **k: None}
    greedy, sampled = (load_corpus(build_corpus(pair.target, pair.tokenizer, tmp_path / name, 1, 4,
                                                GREEDY_AFTER + 12, seed=7, greedy_every=every,
                                                **quiet))[0]
                       for name, every in (("greedy", 1), ("sample", 0)))

    def argmax_share(shard):
        hits = []
        for row, start, top_ids, top_p in zip(shard["tokens"], shard["start"], shard["top_ids"],
                                              shard["top_p"]):
            live = top_p[:, 0] > 0
            written = row[start:start + len(live)][live]
            hits.append(written[GREEDY_AFTER:] == top_ids[live][GREEDY_AFTER:, 0])
        return np.concatenate(hits)

    assert argmax_share(greedy).all()
    assert not argmax_share(sampled).all()


@pytest.fixture(scope="module")
def fixed_text(pair, ids_of):
    """A continuation the target wrote itself at temperature 1 (not in the training corpus)."""
    prompt = "The lighthouse keeper climbed the stairs one last time and"
    ids = ids_of(pair, prompt)
    out = generate(pair, prompt, 80, "target", temperature=1.0, seed=11)
    return ids + out.token_ids, len(ids)


def test_better_named_drafters_accept_more(fixed_text, pair_named):
    """The ladder the playground offers is real: each step up has a higher measured alpha."""
    ids, start = fixed_text
    alpha = {name: float(text_overlap(pair_named(name), ids, start)[0].mean())
             for name in ("early-exit-4", "nimbus-mini-early", "nimbus-mini")}
    assert alpha["early-exit-4"] < alpha["nimbus-mini-early"] < alpha["nimbus-mini"]
    names = drafter_names()
    assert names.index("nimbus-mini-early") < names.index("nimbus-mini")


def test_default_walkthrough_round_shows_every_part_of_the_rule(pair_named):
    """The walkthrough's default link, drafted by the shipped Nimbus-mini, keeps a guess with
    p >= q, keeps one by the coin (p < q), and ends on a rejection and a correction."""
    from lessons.scenario import build_scenario
    from ui.settings import DEFAULT_SEED

    sc = build_scenario(pair_named("nimbus-mini"), seed=DEFAULT_SEED)
    kept = sc.draft_tokens[:sc.record.n_accepted]
    p_at_least_q = [sc.p_dists[i][t] >= sc.q_dists[i][t] for i, t in enumerate(kept)]
    assert any(p_at_least_q) and not all(p_at_least_q)
    assert not sc.record.bonus and sc.record.tokens[-1] != sc.draft_tokens[sc.record.n_accepted]


def test_readme_seed_130_round_keeps_every_draft_and_adds_a_bonus(pair_named):
    """README's second round to show, /?step=3&seed=130: all four of Nimbus-mini's drafts are
    kept, and the same target pass gives a fifth token, the bonus, from its last row."""
    from lessons.scenario import WALKTHROUGH_GAMMA, build_scenario

    sc = build_scenario(pair_named("nimbus-mini"), seed=130)
    assert sc.record.n_accepted == WALKTHROUGH_GAMMA == 4 and sc.record.bonus
    assert sc.record.tokens[:4] == sc.draft_tokens and len(sc.record.tokens) == 5
    assert sc.p_dists[4][sc.record.tokens[4]] > 0  # drawn from p at the bonus position
    # the words README quotes for this round
    assert [sc.labels[t] for t in sc.record.tokens] == [" order", " is", " not", " available", " for"]
