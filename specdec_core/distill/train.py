"""Distil Nimbus-mini from the target's own distributions.

Loss per generated position, over the target's top-K tokens that the reduced head can write:
    soft cross-entropy  -sum_x w(x) log q(x),  w = p restricted and renormalised (forward KL)
  + tv_weight * (1 - sum_x min(p(x), q(x)))    one minus the overlap over those tokens, p not
                                                renormalised: a bound on the rejection chance
The second term bounds the quantity speculative decoding pays for, so it is optimised directly.
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

from ..drafters import init_from_target
from .corpus import load_corpus


def select_vocab(shards: list[dict], size: int, eos_id: int, vocab_size: int) -> torch.Tensor:
    """The `size` tokens with the most target probability mass in the corpus (EOS always)."""
    mass = np.zeros(vocab_size, np.float64)
    for shard in shards:
        np.add.at(mass, shard["top_ids"].reshape(-1), shard["top_p"].reshape(-1).astype(np.float64))
    mass[eos_id] = np.inf
    keep = np.argsort(-mass, kind="stable")[:size]
    return torch.from_numpy(np.sort(keep)).long()


def batches(shards: list[dict], rows: int, rng: np.random.Generator):
    """Shuffled batches of `rows` texts as tensors."""
    order = [(s, i) for s, shard in enumerate(shards) for i in range(len(shard["start"]))]
    rng.shuffle(order)
    for b in range(0, len(order), rows):
        pick = order[b:b + rows]
        texts = [shards[s]["tokens"][i] for s, i in pick]  # shards differ in row width
        width = max(int((t >= 0).sum()) for t in texts)
        tokens = np.zeros((len(texts), width), np.int64)
        for r, t in enumerate(texts):
            tokens[r, : min(width, len(t))] = np.maximum(t[:width], 0)
        yield {
            "tokens": torch.from_numpy(tokens),  # (B, L), padding after each text
            "start": torch.tensor([int(shards[s]["start"][i]) for s, i in pick]),  # (B,)
            "top_ids": torch.from_numpy(np.stack([shards[s]["top_ids"][i] for s, i in pick])).long(),
            "top_p": torch.from_numpy(np.stack([shards[s]["top_p"][i] for s, i in pick])).float(),
        }


def distill_loss(mini, batch, to_small: torch.Tensor, tv_weight: float):
    """(loss, mean overlap over the top-K) for one batch."""
    steps = batch["top_p"].shape[1]
    pos = batch["start"][:, None] + torch.arange(steps)[None] - 1  # (B, G) predicting position
    pos = pos.clamp(max=batch["tokens"].shape[1] - 1)
    logq = torch.log_softmax(mini.reduced_logits(batch["tokens"], pos), -1)  # (B, G, Ks)
    small = to_small[batch["top_ids"]]  # (B, G, K), -1 where the head cannot write the token
    p = batch["top_p"] * (small >= 0)
    logq_at = logq.gather(-1, small.clamp(min=0))  # (B, G, K)
    live = batch["top_p"][..., 0] > 0  # (B, G)
    w = p / p.sum(-1, keepdim=True).clamp(min=1e-9)
    ce = -(w * logq_at).sum(-1)
    overlap = torch.minimum(p, logq_at.exp()).sum(-1)
    per_pos = ce + tv_weight * (1.0 - overlap)
    n = live.sum().clamp(min=1)
    return (per_pos * live).sum() / n, ((overlap * live).sum() / n).item()


@torch.no_grad()
def evaluate(mini, shards, to_small, tv_weight) -> tuple[float, float]:
    mini.eval()
    losses, overlaps = [], []
    for batch in batches(shards, 16, np.random.default_rng(0)):
        loss, ov = distill_loss(mini, batch, to_small, tv_weight)
        losses.append(loss.item())
        overlaps.append(ov)
    mini.train()
    return float(np.mean(losses)), float(np.mean(overlaps))


def train(target, train_shards, *, layers, vocab, epochs, lr, tv_weight, seed,
          rows=16, on_checkpoint=None, log=print):
    """Train a NimbusMini; returns (model, history). `on_checkpoint(model, tag, metrics)` is
    called with tag "early" after 4% of the steps."""
    torch.manual_seed(seed)
    vocab_map = select_vocab(train_shards, vocab, target.config.eos_token_id, target.config.vocab_size)
    mini = init_from_target(target, layers, vocab_map)
    to_small = small_index(mini)
    mini.model.embed_tokens.weight.requires_grad_(False)
    params = [p for p in mini.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    texts = sum(len(s["start"]) for s in train_shards)
    total = max(1, int(math.ceil(texts / rows) * epochs))
    warmup = max(1, total // 30)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    rng = np.random.default_rng(seed)
    history, step, begin = [], 0, time.time()
    mini.train()
    while step < total:
        for batch in batches(train_shards, rows, rng):
            loss, ov = distill_loss(mini, batch, to_small, tv_weight)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            step += 1
            history.append((step, loss.item(), ov))
            if step % 50 == 0 or step == total:
                log(f"step {step}/{total}  loss {loss.item():.3f}  overlap(top-K) {ov:.3f}  "
                    f"{time.time() - begin:.0f}s", flush=True)
            if on_checkpoint and step == max(1, total // 25):
                on_checkpoint(mini, "early", {"step": step})
            if step >= total:
                break
    return mini.eval(), history


def train_and_save(target, train_paths, val_paths, args) -> None:
    train_shards, val_shards = load_corpus(train_paths), load_corpus(val_paths)
    tokens = int(sum((s["top_p"][..., 0] > 0).sum() for s in train_shards))
    recipe = {"layers": args.layers, "vocab": args.vocab, "epochs": args.epochs, "lr": args.lr,
              "tv_weight": args.tv_weight, "seed": args.seed, "shards": args.shards,
              "greedy_every": args.greedy_every, "train_tokens": tokens,
              "train_texts": int(sum(len(s["start"]) for s in train_shards))}

    def save(model, tag, metrics):
        val_loss, val_overlap = evaluate(model, val_shards, small_index(model), args.tv_weight)
        card = {"name": "Nimbus-mini" + ("" if tag == "final" else f" ({tag})"),
                "recipe": recipe, "checkpoint": tag, **metrics,
                "val_loss": val_loss, "val_overlap_topk": val_overlap,
                "target": "SmolLM2-135M-Instruct (Apache-2.0)"}
        model.save(args.out if tag == "final" else args.early_out, card)
        print(f"saved {tag}: val loss {val_loss:.3f}, val overlap(top-K) {val_overlap:.3f}", flush=True)

    mini, history = train(target, train_shards, layers=args.layers, vocab=args.vocab,
                          epochs=args.epochs, lr=args.lr, tv_weight=args.tv_weight, seed=args.seed,
                          on_checkpoint=save)
    save(mini, "final", {"step": history[-1][0]})


def small_index(model) -> torch.Tensor:
    """(V,) position of each target token in the reduced head, -1 where it has none."""
    to_small = torch.full((model.vocab_size,), -1, dtype=torch.long)
    to_small[model.vocab_map] = torch.arange(len(model.vocab_map))
    return to_small
