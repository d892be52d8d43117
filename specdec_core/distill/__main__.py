"""Reproduce Nimbus-mini from nothing: python -m specdec_core.distill [corpus|train|all].

1. corpus: Nimbus-large writes 80 x 64 continuations (128 tokens) of seeded prompts: chat
   support questions in the Nimbus style, openings of general prose and plain-text requests.
   Two shards in three are sampled at temperature 1; every third is sampled for 8 tokens and
   then greedy, the regime of greedy decoding. At every generated position it keeps its own
   top-128 probabilities (data/distill/, 55 to 65 minutes on 2 cores). Two more sampled shards
   with other seeds are held out for validation.
2. train: a 2-layer student of the target's width, initialised from the target's first two
   layers and from its output rows for the 8,192 tokens with the most target probability mass,
   trained 4 epochs on soft cross-entropy + (1 - overlap) against those distributions (18 to
   27 minutes). Checkpoints: assets/nimbus-mini-early (4% of the steps), assets/nimbus-mini.
   This stage alone needs the corpus written already; `all` (the default) runs both.

Everything is seeded (--seed); runs with the same thread count give the same weights. By
default the checkpoints replace the shipped ones (`git checkout -- assets` brings those back);
--out and --early-out write them elsewhere, to compare.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ..catalog import ASSETS, ROOT, TARGET_LAYERS, TARGET_VOCAB, ModelFileError
from ..inputs import non_negative_number, positive_number, whole_number


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m specdec_core.distill", description=__doc__)
    ap.add_argument("stage", nargs="?", default="all", choices=["corpus", "train", "all"])
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "distill", help="where the corpus goes")
    ap.add_argument("--out", type=Path, default=ASSETS / "nimbus-mini",
                    help="where the finished drafter goes (default: the shipped one, replaced)")
    ap.add_argument("--early-out", type=Path, default=ASSETS / "nimbus-mini-early",
                    help="where the early checkpoint goes (default: the shipped one, replaced)")
    ap.add_argument("--shards", type=whole_number(1), default=80, help="training shards of --batch texts")
    ap.add_argument("--greedy-every", type=whole_number(0), default=3,
                    help="every n-th training shard is written greedily after a sampled start")
    ap.add_argument("--val-shards", type=whole_number(1), default=2)
    ap.add_argument("--batch", type=whole_number(1), default=64, help="texts generated together")
    ap.add_argument("--new-tokens", type=whole_number(1), default=128)
    ap.add_argument("--layers", type=whole_number(1, TARGET_LAYERS), default=2)
    ap.add_argument("--vocab", type=whole_number(1, TARGET_VOCAB), default=8192, help="size of the reduced head")
    ap.add_argument("--epochs", type=positive_number, default=4.0)
    ap.add_argument("--lr", type=positive_number, default=1.5e-3)
    ap.add_argument("--tv-weight", type=non_negative_number, default=1.0,
                    help="weight of the rejection term 1 - overlap beside the soft cross-entropy")
    ap.add_argument("--threads", type=whole_number(0), default=0, help="torch threads (0: leave as is)")
    ap.add_argument("--seed", type=whole_number(0), default=0)
    return ap.parse_args(argv)


def corpus_folders(args) -> tuple[tuple[Path, int, int, int], ...]:
    """(folder, shards, seed, greedy_every) of the training and the validation corpus."""
    return ((args.data / "train", args.shards, args.seed + 1, args.greedy_every),
            (args.data / "val", args.val_shards, args.seed + 1_000, 0))


def missing_shards(args) -> list[Path]:
    from .corpus import shard_paths

    return [path for folder, shards, seed, every in corpus_folders(args)
            for path in shard_paths(folder, shards, seed, every) if not path.exists()]


def unwritable(folders) -> list[str]:
    """The folders among `folders` that cannot be made or written to, each with the reason."""
    bad = []
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as err:
            bad.append(f"{folder} ({err.strerror or err})")
    return bad


def main(argv=None) -> None:
    args = parse_args(argv)  # before the imports below, so --help and usage errors come at once
    # checked before an hour of work, not after it
    folders = ([args.data] if args.stage != "train" else []) + \
        ([args.out, args.early_out] if args.stage != "corpus" else [])
    bad = unwritable(folders)
    if bad:
        raise SystemExit("error: cannot write to " + "; ".join(bad))
    missing = missing_shards(args) if args.stage == "train" else []
    if missing:
        raise SystemExit(f"error: {len(missing)} corpus shards are missing from "
                         f"{args.data}; write them first with `python -m specdec_core.distill "
                         "corpus` (about an hour on 2 cores), or run the stage `all`")
    import torch

    from ..cpu_linear import use_cpu_kernels
    from ..models import load_target
    from .corpus import build_corpus

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    try:
        target, tokenizer = load_target("cpu")
    except ModelFileError as err:  # one line that names the fix, not a traceback
        raise SystemExit(f"error: {err}") from None
    # nn.Linear's own product, the same on every run: the faster CPU products are chosen by timing
    # them as the model loads and sum in another order, so a run's sampled tokens would depend on
    # which won. Batches of 64 would gain only about 10 %.
    use_cpu_kernels(target, enabled=False)
    begin = time.time()
    print(f"corpus: Nimbus-large writes {args.shards} + {args.val_shards} shards of {args.batch} "
          f"texts into {args.data} (shards already there are kept; under a minute each on 2 cores)",
          flush=True)
    train_paths, val_paths = (
        build_corpus(target, tokenizer, folder, shards, args.batch, args.new_tokens, seed, every)
        for folder, shards, seed, every in corpus_folders(args))
    print(f"corpus ready in {time.time() - begin:.0f}s", flush=True)
    if args.stage == "corpus":
        return
    from .train import train_and_save

    train_and_save(target, train_paths, val_paths, args)


if __name__ == "__main__":
    main()
