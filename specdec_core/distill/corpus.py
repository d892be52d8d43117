"""The distillation corpus: text the target writes itself, with its own distributions.

Each shard is a safetensors file of fixed-width rows:
    tokens  (N, L) int32   prompt + continuation, right-padded with -1
    start   (N,)   int32   index of the first generated token
    top_ids (N, G, K) int32   the target's K most likely tokens at each generated position
    top_p   (N, G, K) float16 their probabilities (temperature 1)
Positions past the end of a continuation have top_p == 0.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import load_file, save_file

from .prompts import make_prompts

TOP_K = 128


@torch.inference_mode()
def generate_batch(target, tokenizer, prompts: list[list[int]], new_tokens: int, seed: int):
    """Sample continuations at temperature 1 (no warping) and keep the top-K of each p."""
    torch.manual_seed(seed)  # generate() draws from torch's global generator
    width = max(len(p) for p in prompts)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])  # (B, W) left-padded
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    out = target.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=1.0,
                          top_k=0, top_p=1.0, max_new_tokens=new_tokens, output_logits=True,
                          return_dict_in_generate=True, pad_token_id=pad)
    logits = torch.stack(out.logits, 1).float()  # (B, G, V)
    probs = torch.softmax(logits, -1)
    top_p, top_ids = probs.topk(TOP_K, dim=-1)  # (B, G, K)
    gen = out.sequences[:, width:]  # (B, G)
    return gen, top_ids, top_p


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


def build_corpus(target, tokenizer, folder: Path, shards: int, batch: int, new_tokens: int,
                 seed: int, log=print) -> list[Path]:
    """Write `shards` shards of `batch` continuations each; existing shards are kept."""
    folder.mkdir(parents=True, exist_ok=True)
    paths, begin = [], time.time()
    for s in range(shards):
        path = folder / f"shard_{seed}_{s:04d}.safetensors"
        paths.append(path)
        if path.exists():
            continue
        prompts = make_prompts(tokenizer, batch, seed=seed * 100_003 + s)
        gen, top_ids, top_p = generate_batch(target, tokenizer, prompts, new_tokens, seed + s)
        rows = pack_rows(prompts, gen, top_ids, top_p, tokenizer.eos_token_id)
        tmp = path.with_suffix(".tmp")
        save_file(rows, str(tmp))
        tmp.replace(path)
        made = int((rows["top_p"][..., 0] > 0).sum())
        log(f"shard {s + 1}/{shards}: {made} tokens, {time.time() - begin:.0f}s elapsed")
    return paths


def load_corpus(paths: list[Path]) -> list[dict[str, np.ndarray]]:
    return [load_file(str(p)) for p in paths]
