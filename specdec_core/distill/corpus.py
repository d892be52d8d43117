"""The distillation corpus: text the target writes itself, with its own distributions at every
written position.

Each shard is a safetensors file of fixed-width rows:
    tokens  (N, L) int32   prompt + continuation, right-padded with -1
    start   (N,)   int32   index of the first generated token
    top_ids (N, G, K) int32   the target's K most likely tokens at each generated position
    top_p   (N, G, K) float16 their probabilities (temperature 1)
Positions past the end of a continuation have top_p == 0.

Two ways of writing a continuation:
    "sample"  temperature 1 throughout, the regime alpha is measured in;
    "greedy"  the first GREEDY_AFTER tokens sampled (so that texts differ), then the argmax,
              the regime of greedy decoding, where small models fall into loops that a
              drafter must learn to copy.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file, save_file
from transformers import LogitsProcessor, LogitsProcessorList

from .prompts import make_prompts

TOP_K = 128
GREEDY_AFTER = 8
MODES = ("sample", "greedy")


class ArgmaxAfter(LogitsProcessor):
    """Leave the first `free` new tokens to sampling, then allow only the argmax."""

    def __init__(self, prompt_width: int, free: int):
        self.width, self.free = prompt_width, free

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        if input_ids.shape[1] - self.width < self.free:
            return scores
        only = torch.full_like(scores, float("-inf"))
        return only.scatter_(-1, scores.argmax(-1, keepdim=True), 0.0)


def left_padded(prompts: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])  # (B, W)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    return ids, mask


def top_k(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, probs) of the TOP_K most likely tokens of each row of logits (temperature 1)."""
    top_p, top_ids = torch.softmax(logits.float(), -1).topk(TOP_K, dim=-1)
    return top_ids, top_p


@torch.inference_mode()
def generate_batch(target, prompts: list[list[int]], new_tokens: int, seed: int,
                   mode: str = "sample", pad: int = 0):
    """The target continues every prompt and keeps its top-K at every generated position:
    (generated (B, G), top_ids (B, G, K), top_p (B, G, K))."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    ids, mask = left_padded(prompts, pad)
    processors = LogitsProcessorList([ArgmaxAfter(ids.shape[1], GREEDY_AFTER)] if mode == "greedy" else [])
    with torch.random.fork_rng():  # generate() draws from torch's global generator: seed a copy
        torch.manual_seed(seed)
        out = target.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=1.0,
                              top_k=0, top_p=1.0, max_new_tokens=new_tokens, output_logits=True,
                              return_dict_in_generate=True, pad_token_id=pad,
                              logits_processor=processors)
    return (out.sequences[:, ids.shape[1]:], *top_k(torch.stack(out.logits, 1)))


def pack_rows(prompts, gen, top_ids, top_p, eos_id: int) -> dict[str, np.ndarray]:
    """Right-padded rows; each continuation is cut after its first EOS."""
    n, g = gen.shape
    length = max(len(p) for p in prompts) + g
    tokens = np.full((n, length), -1, np.int32)
    start = np.zeros(n, np.int32)
    ids = top_ids.numpy().astype(np.int32)
    probs = top_p.numpy().astype(np.float16)
    for i, prompt in enumerate(prompts):
        cont = gen[i].tolist()
        end = cont.index(eos_id) + 1 if eos_id in cont else g
        row = prompt + cont[:end]
        tokens[i, : len(row)] = row
        start[i] = len(prompt)
        probs[i, end:] = 0
    return {"tokens": tokens, "start": start, "top_ids": ids, "top_p": probs}


def shard_mode(index: int, greedy_every: int) -> str:
    """Every `greedy_every`-th shard is written greedily (0: none)."""
    return "greedy" if greedy_every and index % greedy_every == greedy_every - 1 else "sample"


def shard_paths(folder: Path, shards: int, seed: int, greedy_every: int = 0) -> list[Path]:
    """Where `build_corpus` keeps each shard: the name holds its seed, index and mode."""
    return [folder / f"shard_{seed}_{s:04d}_{shard_mode(s, greedy_every)}.safetensors"
            for s in range(shards)]


def build_corpus(target, tokenizer, folder: Path, shards: int, batch: int, new_tokens: int,
                 seed: int, greedy_every: int = 0, log=print) -> list[Path]:
    """Write `shards` shards of `batch` continuations each into `folder`; shards already there
    are kept, so an interrupted run resumes."""
    folder.mkdir(parents=True, exist_ok=True)
    paths, begin = shard_paths(folder, shards, seed, greedy_every), time.time()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    for s, path in enumerate(paths):
        mode = shard_mode(s, greedy_every)
        if path.exists():
            continue
        prompts = make_prompts(tokenizer, batch, seed=seed * 100_003 + s)
        gen, top_ids, top_p = generate_batch(target, prompts, new_tokens, seed + s, mode, pad)
        rows = pack_rows(prompts, gen, top_ids, top_p, tokenizer.eos_token_id)
        tmp = path.with_suffix(".tmp")
        save_file(rows, str(tmp))
        tmp.replace(path)
        made = int((rows["top_p"][..., 0] > 0).sum())
        log(f"{folder.name} shard {s + 1}/{shards} ({mode}): {made} tokens, "
            f"{time.time() - begin:.0f}s elapsed", flush=True)
    return paths


def load_corpus(paths: list[Path]) -> list[dict[str, np.ndarray]]:
    return [load_file(str(p)) for p in paths]
