"""Draft models for Nimbus-large, all sharing its tokenizer and its input embeddings.

Two kinds:
- EarlyExitDrafter: the target's first k layers, then its final norm and head. Free to make,
  a real but poor draft: the lower layers were never trained to predict the next token.
- NimbusMini: a few transformer layers of the target's width and a head over a reduced
  vocabulary of 8,192 tokens (end-of-text and the 8,191 others to which the target gave the
  most probability over the distillation corpus), distilled from the target. The
  49,152-way output layer dominates a tiny model's cost; the reduced head makes a draft step
  cheap. Tokens outside the reduced vocabulary get q(x) = 0: the draft never proposes them,
  and the accept-or-correct rule still lets the target write them.

Both are transformers LlamaForCausalLM models over the target's full vocabulary, with
`logits(input_ids, cache) -> (T, V)` for the engine.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

from .catalog import DRAFTER_CONFIG, DRAFTER_WEIGHTS
from .digests import check_digest, file_digest
from .draft_step import OneTokenStep


def _shrunk_config(target_config: LlamaConfig, layers: int) -> LlamaConfig:
    """The target's shape with fewer layers (and not the folder it was loaded from)."""
    shape = {k: v for k, v in target_config.to_dict().items() if k != "_name_or_path"}
    config = LlamaConfig(**{**shape, "num_hidden_layers": layers, "tie_word_embeddings": False})
    config.quantization_config = None
    return config


class Drafter(LlamaForCausalLM):
    """A Hugging Face causal LM (so `generate(assistant_model=...)` accepts it) with the
    `logits(input_ids, cache) -> (T, V)` call the engine uses."""

    def logits(self, input_ids: torch.Tensor, cache: DynamicCache, keep: int = 0) -> torch.Tensor:
        """(T, V) scores for the new positions, or for the last `keep` of them (0 = all)."""
        return self(input_ids=input_ids, cache=cache, use_cache=True, logits_to_keep=keep).logits[0]


class EarlyExitDrafter(Drafter):
    """The target's embeddings, first `layers` blocks, final norm and head (shared, not copied)."""

    def __init__(self, target, layers: int):
        total = target.config.num_hidden_layers
        if not 1 <= layers < total:
            raise ValueError(f"early-exit depth must lie in [1, {total - 1}]; got {layers}")
        # built without memory (every module is replaced by the target's own just below): a
        # randomly initialised early-exit-12 would take about 400 MB for a moment
        with torch.device("meta"):
            super().__init__(_shrunk_config(target.config, layers))
        self.model.embed_tokens = target.model.embed_tokens
        self.model.layers = nn.ModuleList(target.model.layers[:layers])
        self.model.norm = target.model.norm
        self.model.rotary_emb = target.model.rotary_emb  # the same positions, the same head size
        self.lm_head = target.lm_head
        left = [n for n, t in [*self.named_parameters(), *self.named_buffers()] if t.is_meta]
        if left:
            raise RuntimeError(f"early exit: {left} still have no values")


class ReducedHead(nn.Module):
    """An output layer over K kept tokens, scattered into the full vocabulary with -inf
    elsewhere: row i of `proj` scores token vocab_map[i]."""

    def __init__(self, hidden: int, vocab_map: torch.Tensor, vocab_size: int):
        super().__init__()
        self.proj = nn.Linear(hidden, len(vocab_map), bias=False)
        self.register_buffer("vocab_map", vocab_map.long().clone())
        self.vocab_size = vocab_size

    def reduced(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.proj(hidden)  # (..., K)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        small = self.proj(hidden)  # (..., K)
        full = small.new_full((*small.shape[:-1], self.vocab_size), float("-inf"))  # (..., V)
        full[..., self.vocab_map] = small
        return full


class NimbusMini(Drafter):
    """A small Llama body of the target's width with a reduced-vocabulary head. Its input
    embeddings are the target's (frozen and shared), so they are not stored with it."""

    def __init__(self, config: LlamaConfig, vocab_map: torch.Tensor, embed_tokens: nn.Embedding):
        super().__init__(config)
        self.model.embed_tokens = embed_tokens
        self.lm_head = ReducedHead(config.hidden_size, vocab_map, config.vocab_size)
        self.one_token_step: OneTokenStep | None = None

    def use_one_token_step(self) -> bool:
        """Answer one-position calls of `logits` with `OneTokenStep` from now on, where every
        product is the float16 one on a CPU (see draft_step); whether it does."""
        self.one_token_step = OneTokenStep(self) if OneTokenStep.fits(self) else None
        return self.one_token_step is not None

    def __getstate__(self):  # a copy makes its own step, from its own weights, if it wants one
        return {**super().__getstate__(), "one_token_step": None}

    def logits(self, input_ids: torch.Tensor, cache: DynamicCache, keep: int = 0) -> torch.Tensor:
        step = self.one_token_step
        if step is not None and step.serves(input_ids):
            return self.lm_head(step.hidden(input_ids, cache))[0]
        return super().logits(input_ids, cache, keep)

    @property
    def vocab_map(self) -> torch.Tensor:
        return self.lm_head.vocab_map

    def reduced_logits(self, input_ids: torch.Tensor, positions: torch.Tensor | None = None):
        """Scores over the reduced vocabulary, no cache: (B, T, K), or (B, P, K) at the given
        (B, P) positions only. Used in training."""
        hidden = self.model(input_ids=input_ids, use_cache=False)[0]  # (B, T, H)
        if positions is not None:
            hidden = hidden.gather(1, positions[..., None].expand(-1, -1, hidden.shape[-1]))
        return self.lm_head.reduced(hidden)

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """Everything but the shared input embeddings."""
        return {k: v.detach().contiguous() for k, v in self.state_dict().items()
                if not k.startswith("model.embed_tokens.")}

    def save(self, folder: Path, card: dict) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        state = {k: v.half() if v.is_floating_point() else v for k, v in self.trainable_state().items()}
        save_file(state, str(folder / DRAFTER_WEIGHTS), metadata={"format": "pt"})
        config = {"llama": self.config.to_dict(), "reduced_vocab": len(self.vocab_map), **card,
                  "sha256": file_digest(folder / DRAFTER_WEIGHTS)}
        (folder / DRAFTER_CONFIG).write_text(json.dumps(config, indent=2, default=str))


def init_from_target(target, layers: int, vocab_map: torch.Tensor) -> NimbusMini:
    """A NimbusMini whose body is a copy of the target's first layers and whose head rows are
    the target's output rows for the kept tokens: a sensible start for distillation."""
    mini = NimbusMini(_shrunk_config(target.config, layers), vocab_map, target.model.embed_tokens)
    state = target.model.state_dict()
    body = {k: v.clone() for k, v in state.items()
            if k.startswith("norm.") or any(k.startswith(f"layers.{i}.") for i in range(layers))}
    missing, unexpected = mini.model.load_state_dict(body, strict=False)
    if unexpected or any(not k.startswith("embed_tokens.") for k in missing):
        # renamed keys would leave the body at its random start, and training would not say so
        raise ValueError(f"the target's first layers do not fit the drafter: missing {missing}, "
                         f"unexpected {unexpected}")
    with torch.no_grad():
        mini.lm_head.proj.weight.copy_(target.lm_head.weight[vocab_map])
    return mini


def load_nimbus_mini(folder: Path, target) -> NimbusMini:
    """Load a NimbusMini saved by `NimbusMini.save`; embeddings come from `target`."""
    folder = Path(folder)
    meta = json.loads((folder / DRAFTER_CONFIG).read_text())
    config = LlamaConfig(**meta["llama"])
    config.quantization_config = None
    check_digest(folder / DRAFTER_WEIGHTS, meta.get("sha256"))
    state = load_file(str(folder / DRAFTER_WEIGHTS))
    mini = NimbusMini(config, state["lm_head.vocab_map"], target.model.embed_tokens)
    state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    missing, unexpected = mini.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.startswith("model.embed_tokens.")]
    if missing or unexpected:
        raise ValueError(f"drafter weights do not match its config: missing {missing}, "
                         f"unexpected {unexpected}")
    return mini.eval()
