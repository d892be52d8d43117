"""Speed measured side by side in one run: target-only, ours, and transformers' assisted
generation with the same pair. Runs are interleaved prompt by prompt, in an order that turns
from one prompt to the next, so a noisy neighbour slows all three alike, and only ratios are
reported as the result. Every run writes exactly the tokens asked for: end-of-text is banned
on each side alike, so a run that would have ended early does not spread its prompt pass
over fewer tokens."""
from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from .cpu_linear import row_products_of
from .engine import check_request, generate, prompt_ids
from .timing import timed

BENCH_PROMPTS = (
    "Your export failed because your",
    "Thanks for writing in. The invoice shows a second charge because",
    "To reset your password, open the app and",
    "The quarterly report could not be generated since",
)


@dataclass
class MethodTotals:
    tokens: int = 0
    seconds: float = 0.0
    target_passes: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


@dataclass
class BenchReport:
    settings: dict
    totals: dict[str, MethodTotals] = field(default_factory=dict)

    def ratio(self, a: str, b: str) -> float:
        return self.totals[a].tokens_per_second / self.totals[b].tokens_per_second

    def table(self) -> str:
        lines = [f"settings: {self.settings}", f"{'method':<22}{'tokens/s':>10}{'tokens/pass':>13}"]
        for name, t in self.totals.items():
            per_pass = f"{t.tokens / t.target_passes:.2f}" if t.target_passes else "-"
            lines.append(f"{name:<22}{t.tokens_per_second:>10.1f}{per_pass:>13}")
        lines.append(f"speed-up, ours vs target-only:         {self.ratio('speculative', 'target'):.2f}x")
        if "hf-assisted" in self.totals:
            lines.append(f"ours vs transformers assisted (same pair): "
                         f"{self.ratio('speculative', 'hf-assisted'):.2f}x")
        return "\n".join(lines)


class _AssistedCallNotes(logging.Filter):
    """Drops the two warnings transformers' assisted generation gives about the call it makes
    to the drafter itself (a generation config beside loose arguments; a min-new-tokens
    processor passed on as well as built): nothing a caller of `generate` can change."""

    NOTES = ("Passing `generation_config` together with", "MinNewTokensLengthLogitsProcessor")

    def filter(self, record: logging.LogRecord) -> bool:
        return not any(note in record.getMessage() for note in self.NOTES)


@contextmanager
def _quiet_assisted_call():
    log, notes = logging.getLogger("transformers.generation.utils"), _AssistedCallNotes()
    log.addFilter(notes)
    try:
        yield
    finally:
        log.removeFilter(notes)


@torch.inference_mode()
def hf_assisted(pair, prompt: str | list[int], max_new_tokens: int, gamma: int, temperature: float, seed: int,
                stop_below: float = 0.0):
    """transformers' own speculative decoding with the same pair, the same early stop (its
    assistant_confidence_threshold) and end-of-text banned (min_new_tokens, which it passes on to
    the drafter too); (the new token ids, seconds)."""
    ids = torch.tensor([prompt_ids(pair, prompt)])
    config = pair.drafter.generation_config
    saved = (config.num_assistant_tokens, config.num_assistant_tokens_schedule,
             config.assistant_confidence_threshold)
    config.num_assistant_tokens, config.num_assistant_tokens_schedule = gamma, "constant"
    # 0: draft exactly gamma tokens. The threshold stays fixed here: transformers tunes it as it
    # goes only when scikit-learn is installed, which this project does not install
    config.assistant_confidence_threshold = stop_below
    sampling = {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0} \
        if temperature > 0 else {"do_sample": False}
    try:
        # transformers samples from torch's global generator
        with torch.random.fork_rng(), _quiet_assisted_call():
            torch.manual_seed(seed)
            out, seconds = timed(lambda: pair.target.generate(
                ids.to(pair.device), assistant_model=pair.drafter, max_new_tokens=max_new_tokens,
                min_new_tokens=max_new_tokens, **sampling))
    finally:
        (config.num_assistant_tokens, config.num_assistant_tokens_schedule,
         config.assistant_confidence_threshold) = saved
    return out[0, ids.shape[1]:].tolist(), seconds


def compare_methods(pair, gamma=4, temperature=0.0, max_new_tokens=96, repeats=3,
                    prompts=BENCH_PROMPTS, reference=True, stop_below=0.0) -> BenchReport:
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a whole number >= 1; got {repeats!r}")
    report = BenchReport({"drafter": pair.drafter_name, "gamma": gamma, "stop_below": stop_below,
                          "temperature": temperature,
                          "max_new_tokens": max_new_tokens, "repeats": repeats,
                          "prompts": len(prompts), "device": pair.device,
                          "threads": torch.get_num_threads(),
                          "cpu_products": row_products_of(pair.target)})
    names = ["target", "speculative"] + (["hf-assisted"] if reference else [])
    report.totals = {n: MethodTotals() for n in names}

    def measure(method: str, prompt: str, tokens: int, seed: int) -> None:
        t = report.totals[method]
        if method == "hf-assisted":
            new, seconds = hf_assisted(pair, prompt, tokens, gamma, temperature, seed, stop_below)
            t.tokens, t.seconds = t.tokens + len(new), t.seconds + seconds
            return
        res = generate(pair, prompt, tokens, method, gamma, temperature, seed=seed,
                       stop_below=stop_below, suppress_eos=True)
        t.tokens += res.stats.new_tokens
        t.seconds += res.stats.wall_seconds
        t.target_passes += res.stats.target_passes

    for prompt in prompts:  # a request too long for the context is refused before any timing
        check_request(pair, prompt_ids(pair, prompt), max_new_tokens, "speculative", gamma,
                      stop_below=stop_below)
    # warm-up: the first call of each side pays its one-time setup outside the timings
    for method in names:
        measure(method, prompts[0], 4, 0)
    report.totals = {n: MethodTotals() for n in names}
    for r in range(repeats):
        for i, prompt in enumerate(prompts):
            turn = (r * len(prompts) + i) % len(names)  # who goes first turns with each prompt
            for method in names[turn:] + names[:turn]:
                measure(method, prompt, max_new_tokens, 1000 * r + i)
    return report
