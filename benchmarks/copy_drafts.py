"""How much copying from the context (prompt lookup) would add to Nimbus-mini's drafts.

At each position of the drafter table's texts: if the last `--match` tokens occurred earlier,
the copy guess is the token that followed their latest earlier occurrence. Printed for the
greedy texts and the temperature-1 texts:
  - how often such a match exists, and how often its guess is the target's argmax;
  - greedy agreement of the drafter alone, and with the copy guess taking over where it exists;
  - alpha of the drafter alone, and of q with a share `--mix` of its mass moved onto the copy
    guess where one exists (any q keeps the output exact; only acceptance changes).

    .venv/bin/python benchmarks/copy_drafts.py [--drafter NAME] [--match N] [--mix F] [--prompts FILE]
"""
from __future__ import annotations

import argparse

import numpy as np
from common import HELDOUT_PROMPTS, add_prompts_option, chosen_prompts, own_texts, run

from specdec_core.catalog import DEFAULT_DRAFTER
from specdec_core.models import load_pair
from specdec_core.sampling import overlap


def copy_guess(ids: list[int], match: int) -> int | None:
    """The token that followed the latest earlier occurrence of the last `match` tokens of
    `ids`, or None if they did not occur before."""
    if len(ids) <= match:
        return None
    tail = ids[-match:]
    for s in range(len(ids) - match - 1, -1, -1):
        if ids[s:s + match] == tail:
            return ids[s + match]
    return None


def score(pair, texts, match: int, mix: float) -> dict[str, float]:
    found, right, alone, joint, alpha, alpha_mixed = 0, 0, [], [], [], []
    for ids, start in texts:
        p, q = pair.distributions(ids[:-1])  # row t predicts token t + 1
        for t in range(start - 1, len(ids) - 1):
            guess = copy_guess(ids[:t + 1], match)
            best_p, best_q = int(p[t].argmax()), int(q[t].argmax())
            alone.append(best_q == best_p)
            joint.append((best_q if guess is None else guess) == best_p)
            mixed = q[t].astype(np.float64)
            if guess is not None:
                found += 1
                right += guess == best_p
                mixed = (1.0 - mix) * mixed
                mixed[guess] += mix
            alpha.append(overlap(p[t], q[t]))
            alpha_mixed.append(overlap(p[t], mixed))
    return {"positions": len(alone), "match share": found / len(alone),
            "match is argmax": right / max(found, 1), "agreement alone": float(np.mean(alone)),
            "agreement with copy": float(np.mean(joint)), "alpha alone": float(np.mean(alpha)),
            "alpha mixed": float(np.mean(alpha_mixed))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drafter", default=DEFAULT_DRAFTER)
    ap.add_argument("--match", type=int, default=2, help="tokens that must repeat (default 2)")
    ap.add_argument("--mix", type=float, default=0.5, help="share of q moved onto the copy guess")
    add_prompts_option(ap)
    args = ap.parse_args()
    if args.match < 1 or not 0.0 <= args.mix <= 1.0:
        ap.error("--match must be at least 1 and --mix must lie in [0, 1]")
    prompts = chosen_prompts(ap, args, HELDOUT_PROMPTS)
    pair = load_pair(args.drafter, "cpu")
    for name, texts in (("greedy texts", own_texts(pair, 0.0, prompts)),
                        ("temperature-1 texts", own_texts(pair, 1.0, prompts))):
        figures = score(pair, texts, args.match, args.mix)
        print(f"{name}: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                      for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    run(main)
