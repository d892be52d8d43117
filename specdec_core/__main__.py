"""Command line for preparing a class from a terminal.

    python -m specdec_core prepare                      convert the bundled target once
    python -m specdec_core generate --prompt "..."      write a continuation
    python -m specdec_core bench                        speculative against Nimbus-large alone and
                                                        against transformers' assisted generation
    python -m specdec_core bench --prompts FILE         the same on your prompts, one per line
    python -m specdec_core quality --text FILE          alpha and agreement on your own text
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .catalog import DEFAULT_DRAFTER, TARGET_LAYERS, ModelFileError, drafter_names, validate_drafter_name
from .checks import (MOST_NEW_TOKENS, check_device_name, check_new_tokens, check_prompt_text, check_sampling,
                     check_settings)
from .inputs import (MAX_GAMMA, MAX_TEMPERATURE, MIN_TEMPERATURE, SCORE_MAX_TOKENS, number_argument, read_prompts,
                     read_text, whole_argument, whole_number)

DRAFTER_HELP = (f"one of {', '.join(drafter_names())}, or early-exit-K for K from 1 to {TARGET_LAYERS - 1} "
                "(default: %(default)s)")
DEVICE_HELP = "cpu, cuda, or auto: cuda where there is one (default: %(default)s)"


def _check(args) -> None:
    """Refuse bad settings at once: before torch is imported, and before the models load."""
    check_sampling(args.temperature, getattr(args, "top_k", 0), getattr(args, "top_p", 1.0))
    validate_drafter_name(args.drafter)
    check_device_name(args.device)
    check_settings(args.max_new_tokens, getattr(args, "method", "speculative"), args.gamma,
                   stop_below=args.stop_below)
    check_new_tokens(args.max_new_tokens)
    if hasattr(args, "prompt"):
        check_prompt_text(args.prompt)


def _say(note: str) -> None:
    """What the command is doing, for a person at a terminal: a pipe or a log gets only the
    results."""
    if sys.stderr.isatty():
        print(note, file=sys.stderr, flush=True)


def _say_if_converting() -> None:
    from .models import target_is_converted

    if not target_is_converted():
        _say("Converting Nimbus-large from its GGUF file, once (about a minute)…")


def _load(drafter: str, device: str):
    from .models import load_pair, resolve_device

    resolve_device(device)  # a GPU asked for where there is none: refused before any note
    _say_if_converting()
    _say(f"Loading Nimbus-large and {drafter}…")
    return load_pair(drafter, device)


class _Echo:
    """Prints the text as it grows, for a person at a terminal (a pipe or a file gets the text
    once, whole). Held back until a later pass: a character whose bytes are still being written
    (decoded so far as U+FFFD) and trailing blanks, which the next token's decoding may still
    change."""

    def __init__(self, tokenizer):
        self.tokenizer, self.shown = tokenizer, ""

    def __call__(self, ids: list[int]) -> None:
        text = self.tokenizer.decode(ids, skip_special_tokens=True).rstrip("\ufffd").rstrip()
        if text.startswith(self.shown):
            print(text[len(self.shown):], end="", flush=True)
            self.shown = text

    def finish(self, text: str) -> None:
        print(text[len(self.shown):] if text.startswith(self.shown) else "\n" + text)


def _generate(args) -> int:
    _check(args)
    from .engine import generate  # torch: only once everything checks out

    pair = _load(args.drafter, args.device)
    echo = _Echo(pair.tokenizer) if sys.stdout.isatty() and not args.json else None
    result = generate(pair, args.prompt, args.max_new_tokens, args.method, args.gamma,
                      args.temperature, args.top_k, args.top_p, args.seed, stop_below=args.stop_below,
                      as_written=echo)
    if args.json:
        print(json.dumps({"text": result.text, "token_ids": result.token_ids,
                          "origins": result.origins, "stats": result.stats.as_dict()}, indent=2))
    else:
        if echo:
            echo.finish(result.text)
        else:
            print(result.text)
        s = result.stats
        rate = "acceptance rate with the early stop" if args.stop_below else "α"
        kept = f"{s.accepted} of {s.checked} checked drafts kept ({rate} {s.alpha:.2f}), " if s.checked else ""
        print(f"\n[{args.method}] {s.new_tokens} tokens, {s.target_passes} target passes, "
              f"{kept}{s.tokens_per_second:.1f} tokens/s", file=sys.stderr)
    return 0


def _bench(args) -> int:
    _check(args)
    mine = read_prompts(args.prompts) if args.prompts else None  # a bad file is refused at once too
    from .bench import BENCH_PROMPTS, compare_methods  # torch: only once everything checks out

    prompts = mine or BENCH_PROMPTS
    pair = _load(args.drafter, args.device)
    _say(f"Timing {len(prompts)} prompts, {args.repeats} times each, three ways…")
    report = compare_methods(pair, gamma=args.gamma, temperature=args.temperature,
                             max_new_tokens=args.max_new_tokens, repeats=args.repeats,
                             prompts=prompts, stop_below=args.stop_below)
    print(report.table())
    return 0


def _quality(args) -> int:
    if "all" in args.drafters and len(args.drafters) > 1:
        raise ValueError("'all' stands alone: give --drafters all, or a list of drafter names")
    names = drafter_names() if args.drafters == ["all"] else list(dict.fromkeys(args.drafters))
    for name in names:
        validate_drafter_name(name)
    check_device_name(args.device)
    if args.max_tokens < 2:
        raise ValueError(f"max_tokens must be at least 2; got {args.max_tokens}")
    text = read_text(args.text)
    from .models import pair_with  # torch: only once everything checks out
    from .quality import score_text

    base = _load(names[0], args.device)
    print(f"{'drafter':<20}{'alpha':>7}{'argmax agree':>14}{'positions':>11}")
    for name in names:  # one target, loaded once, with each drafter in turn
        pair = base if name == names[0] else pair_with(base.target, base.tokenizer, name)
        s = score_text(pair, text, max_tokens=args.max_tokens)
        print(f"{name:<20}{s.alpha:>7.3f}{s.argmax_agreement:>14.3f}{s.positions:>11}", flush=True)
    if s.more:
        print(f"scored the first {s.tokens} tokens of the text, which holds more (--max-tokens)",
              file=sys.stderr)
    return 0


def _prepare(args) -> int:
    from .models import load_target

    _say_if_converting()
    load_target("cpu")
    print("Nimbus-large is ready.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m specdec_core", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="convert the bundled target model once")
    helps = {"generate": "continue a prompt, speculatively (sampled at temperature 1 by default) "
                         "or with Nimbus-large alone",
             "bench": "time speculative generation against Nimbus-large alone and against "
                      "transformers' assisted generation on the same prompts (greedy by default)"}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--drafter", default=DEFAULT_DRAFTER, help=DRAFTER_HELP)
        p.add_argument("--device", default="auto", help=DEVICE_HELP)
        p.add_argument("--gamma", type=whole_argument, default=4,
                       help=f"tokens the drafter proposes per round, 1 to {MAX_GAMMA} (default: %(default)s)")
        p.add_argument("--temperature", type=number_argument, default=1.0 if name == "generate" else 0.0,
                       help=f"0 is greedy; else {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g} "
                            "(default: %(default)g)")
        ended = ("fewer where Nimbus-large ends the text" if name == "generate"
                 else "every side writes all of them: end-of-text is not drawn")
        p.add_argument("--max-new-tokens", type=whole_argument, default=64 if name == "generate" else 96,
                       help=f"tokens to write, at most {MOST_NEW_TOKENS:,}; {ended} (default: %(default)s)")
        p.add_argument("--stop-below", type=number_argument, default=0.0, metavar="P",
                       help="end a draft early after a token the drafter gave less than P, in "
                            "the distribution it drew it from (its plain softmax when greedy; "
                            "0, the default: always draft gamma tokens)")
    gen = sub.choices["generate"]
    gen.add_argument("--prompt", required=True, help="the text to continue")
    gen.add_argument("--method", default="speculative", choices=["speculative", "target"],
                     help="target: Nimbus-large alone, one pass per token (default: %(default)s)")
    gen.add_argument("--top-k", type=whole_argument, default=0, help="0, the default, is off")
    gen.add_argument("--top-p", type=number_argument, default=1.0, help="1, the default, is off")
    gen.add_argument("--seed", type=whole_number(0), default=0,
                     help="the same seed and settings write the same text (default: %(default)s)")
    gen.add_argument("--json", action="store_true", help="print text, ids, origins and stats")
    sub.choices["bench"].add_argument("--repeats", type=whole_number(1), default=3,
                                      help="timed runs per prompt and side (default: %(default)s)")
    sub.choices["bench"].add_argument("--prompts", metavar="FILE",
                                      help="UTF-8 file, one prompt per line (default: four built in)")
    qual = sub.add_parser("quality", help="alpha (mean sum of min(p, q) at temperature 1) and "
                          "argmax agreement of drafters on a text file")
    qual.add_argument("--text", metavar="FILE", required=True, help="UTF-8 text file")
    qual.add_argument("--drafters", nargs="+", default=[DEFAULT_DRAFTER], metavar="NAME",
                      help=f"drafter names, or 'all' (default: {DEFAULT_DRAFTER})")
    qual.add_argument("--device", default="auto", help=DEVICE_HELP)
    qual.add_argument("--max-tokens", type=whole_argument, default=SCORE_MAX_TOKENS,
                      help="score at most this many tokens from the start of the text (default: %(default)s)")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    run = {"prepare": _prepare, "generate": _generate, "bench": _bench,
           "quality": _quality}[args.command]
    try:
        code = run(args)
        sys.stdout.flush()  # here, so that a reader gone early is met inside this try
        return code
    except (ValueError, ModelFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: what was printed stays, with one line to say why it ends
        print("\nstopped (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped early (`| head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # quiet the final flush
        return 1


if __name__ == "__main__":
    sys.exit(main())
