"""Tests for the command line (python -m specdec_core) and the side-by-side benchmark."""
from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import types

import pytest
import torch

import specdec_core.bench
from specdec_core import catalog, models
from specdec_core.__main__ import _Echo, main
from specdec_core.bench import compare_methods
from specdec_core.checks import check_settings
from specdec_core.engine import generate
from specdec_core.inputs import MAX_GAMMA, MAX_TEMPERATURE, MIN_TEMPERATURE
from specdec_core.warping import Sampling
from specdec_core.catalog import ROOT
from specdec_core.quality import score_text

PHRASE = "Your export failed because your"
TIMING_KEYS = {"wall_seconds", "tokens_per_second"}


def python(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def cli(*args: str) -> subprocess.CompletedProcess:
    return python("-m", "specdec_core", *args)


def last_error(run: subprocess.CompletedProcess, code: int = 2) -> str:
    """A refused command exits with `code` and no traceback; the last line it says."""
    assert run.returncode == code and "Traceback" not in run.stderr, run.stderr
    return run.stderr.strip().splitlines()[-1]


def script(name: str, *args: str) -> subprocess.CompletedProcess:
    return python(str(ROOT / "benchmarks" / name), *args)


@pytest.mark.parametrize("stop_below, rate", [("0", "α"), ("0.4", "acceptance rate with the early stop")])
def test_generate_names_the_acceptance_rate_it_measured(pair, monkeypatch, capsys, stop_below, rate):
    """With an early stop no draft follows an unsure one (the unsure draft itself is checked), so
    the rate over the drafts checked is not the drafter's α."""
    monkeypatch.setattr(models, "load_pair", lambda *args: pair)
    assert main(["generate", "--prompt", PHRASE, "--max-new-tokens", "12", "--stop-below", stop_below,
                 "--temperature", "0"]) == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    res = generate(pair, PHRASE, 12, "speculative", gamma=4, temperature=0, seed=0,
                   stop_below=float(stop_below))
    assert f"{res.stats.accepted} of {res.stats.checked} checked drafts kept ({rate} " \
           f"{res.stats.alpha:.2f})" in summary, summary


def test_generate_prints_the_text_it_wrote(pair):
    run = cli("generate", "--prompt", PHRASE, "--max-new-tokens", "12", "--temperature", "1", "--seed", "3",
              "--drafter", "early-exit-6", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    res = generate(pair, PHRASE, 12, "speculative", gamma=4, temperature=1, seed=3)
    assert run.stdout == res.text + "\n"
    assert run.stderr.startswith("\n[speculative] 12 tokens")  # no loading notes for a pipe


def test_generate_shows_the_text_as_it_grows_and_only_whole_characters(pair, capsys):
    """Each pass's ids so far, as generate hands them on: an emoji's bytes split between tokens
    are never shown half-written, and the pieces printed add up to the text."""
    text = "Your café ☕ costs 3 € 😀 — ok"
    ids = pair.tokenizer(text, add_special_tokens=False)["input_ids"]
    assert any("\ufffd" in pair.tokenizer.decode(ids[:end]) for end in range(len(ids)))  # split bytes
    echo, printed = _Echo(pair.tokenizer), ""
    for end in range(1, len(ids) + 1):
        echo(ids[:end])
        printed += capsys.readouterr().out
        assert "\ufffd" not in printed and text.startswith(printed)
    echo.finish(pair.tokenizer.decode(ids))
    assert printed + capsys.readouterr().out == text + "\n"


def test_generate_hands_on_each_pass(pair):
    seen = []
    res = generate(pair, PHRASE, 10, "speculative", gamma=3, temperature=1, seed=5,
                   as_written=lambda ids: seen.append(list(ids)))
    assert len(seen) == res.stats.target_passes and seen[-1] == res.token_ids
    assert all(b[:len(a)] == a and len(b) > len(a) for a, b in zip(seen, seen[1:]))


def test_help_quotes_the_limits_the_checks_enforce(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"1 to {MAX_GAMMA} " in text and f"else {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g} " in text
    assert f"early-exit-K for K from 1 to {catalog.TARGET_LAYERS - 1} " in text
    catalog.validate_drafter_name(f"early-exit-{catalog.TARGET_LAYERS - 1}")
    with pytest.raises(ValueError, match=f"from 1 to {MAX_GAMMA}; got {MAX_GAMMA + 1}"):
        check_settings(8, "speculative", MAX_GAMMA + 1)
    with pytest.raises(ValueError, match="temperature must be"):
        Sampling(MAX_TEMPERATURE * 1.01)


def test_ctrl_c_ends_with_one_line(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(models, "load_pair", interrupted)
    assert main(["generate", "--prompt", PHRASE]) == 130
    assert capsys.readouterr().err.strip() == "stopped (Ctrl-C)"


def test_a_terminal_is_told_what_loads(pair, monkeypatch, capsys):
    monkeypatch.setattr(models, "load_pair", lambda *args: pair)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["generate", "--prompt", PHRASE, "--max-new-tokens", "2", "--drafter", "early-exit-6"]) == 0
    assert "Loading Nimbus-large and early-exit-6…" in capsys.readouterr().err


@pytest.mark.parametrize("stop_below", [0.0, 0.4])
def test_generate_json_matches_engine(pair, stop_below):
    run = cli("generate", "--prompt", PHRASE, "--max-new-tokens", "8", "--temperature", "0",
              "--json", "--drafter", "early-exit-6", "--device", "cpu", "--stop-below", str(stop_below))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    res = generate(pair, PHRASE, 8, "speculative", gamma=4, temperature=0, seed=0, stop_below=stop_below)
    assert out["token_ids"] == res.token_ids and len(out["token_ids"]) == 8
    assert out["text"] == res.text and out["origins"] == res.origins
    stats = res.stats.as_dict()
    assert set(out["stats"]) == set(stats)
    assert {k: v for k, v in out["stats"].items() if k not in TIMING_KEYS} == \
        {k: v for k, v in stats.items() if k not in TIMING_KEYS}
    assert out["stats"]["tokens_per_second"] > 0


@pytest.mark.parametrize("args, message", [
    (["--prompt", "Hello", "--gamma", "0"], "gamma must be a whole number from 1 to 16; got 0"),
    (["--prompt", ""], "the prompt is empty"),
    (["--prompt", "\u200b\u2060 "], "the prompt is empty"),  # shows nothing, as the app judges it
    (["--prompt", "caf\udce9"], "the prompt is not valid Unicode text (character 3)"),
    (["--prompt", "\udced\udca0\udc80"], "the prompt is not valid Unicode text (character 0)"),  # not "empty"
    (["--prompt", "Hello", "--stop-below", "1.5"],
     "stop_below (the draft's early-stop threshold) must lie in [0, 1]"),
    pytest.param(["--prompt", "Hello", "--device", "cuda"], "asks for a CUDA GPU, but this PyTorch sees none",
                 marks=pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")),
])
def test_bad_input_exits_2_with_one_error_line(args, message):
    run = cli("generate", "--max-new-tokens", "4", "--drafter", "early-exit-6", "--device", "cpu",
              *args)  # args last: an option given twice takes its last value
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stdout == ""
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and errors[0] == lines[-1]  # one line, the last thing said
    assert message in errors[0]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
@pytest.mark.parametrize("command", [["quality", "--text", "README.md"], ["bench"]])
def test_a_gpu_asked_for_where_there_is_none_is_refused_before_anything_is_printed(command):
    run = cli(*command, "--device", "cuda")
    assert run.stdout == "" and "asks for a CUDA GPU, but this PyTorch sees none" in last_error(run)


@pytest.mark.parametrize("argv", [
    ["generate", "--prompt", "Hello", "--drafter", "early-exit-6", "--device", "cpu"],
    ["bench", "--drafter", "early-exit-6", "--device", "cpu"],
    ["prepare"],
])
def test_a_missing_model_file_exits_2_naming_its_fix(argv, monkeypatch, tmp_path, capsys):
    """No target wheel and no converted copy (as test_models.py builds it): the loader's
    ModelFileError becomes one `error:` line with the fixing command, and exit code 2."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == catalog.GGUF_PACKAGE else real(name, *a, **k))
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: The target model file") and "is not installed" in line
    assert line.endswith(f"Fix it with: `{catalog.SETUP_COMMAND}`")


def test_output_nobody_reads_is_not_an_error():
    """A reader that stops early (`| head`; here `| true`, which reads nothing) gets no
    BrokenPipeError traceback."""
    run = subprocess.run(f"{sys.executable} -m specdec_core generate --prompt Hi --max-new-tokens 4 "
                         "--drafter early-exit-6 --device cpu --json | true; echo ${PIPESTATUS[0]}",
                         shell=True, executable="/bin/bash", cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert "BrokenPipeError" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert run.stdout.strip() == "1"  # not the 120 of an exception at exit


@pytest.mark.parametrize("args, message", [
    (["generate", "--prompt", "Hi", "--seed", "-1"], "argument --seed: -1 is out of range: give a whole number at least 0"),
    (["bench", "--repeats", "0"], "argument --repeats: 0 is out of range: give a whole number at least 1"),
    (["bench", "--repeats", "two"], "argument --repeats: 'two' is not a whole number"),
    (["generate", "--prompt", "Hi", "--gamma", "٣"], "argument --gamma: '٣' is not a whole number"),
    (["bench", "--max-new-tokens", "9_6"], "argument --max-new-tokens: '9_6' is not a whole number"),
    (["generate", "--prompt", "Hi", "--temperature", "nan"], "argument --temperature: 'nan' is not a number"),
    (["generate", "--prompt", "Hi", "--top-p", "+0.5"], "argument --top-p: '+0.5' is not a number"),
    (["bench", "--temperature", "1e999"], "argument --temperature: '1e999' is too large a number"),
])
def test_a_bad_count_is_a_usage_error_before_loading(args, message, tmp_path):
    empty_cache = tmp_path / "cache"  # a load would convert the target into it
    run = subprocess.run([sys.executable, "-m", "specdec_core", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "NIMBUS_MODEL_CACHE": str(empty_cache)})
    assert message in last_error(run)
    assert not empty_cache.exists()  # refused before any model was looked for


@pytest.mark.parametrize("module, args, code", [
    ("specdec_core", ["--help"], 0), ("specdec_core", ["bench", "--repeats", "0"], 2),
    ("specdec_core", ["quality"], 2), ("specdec_core", ["generate", "--gamma", "x"], 2),
    # a setting out of range, a blank prompt, a name that is no drafter or device, a missing file
    ("specdec_core", ["generate", "--prompt", "Hi", "--gamma", str(MAX_GAMMA + 1)], 2),
    ("specdec_core", ["generate", "--prompt", "Hi", "--temperature", "99"], 2),
    ("specdec_core", ["generate", "--prompt", "Hi", "--top-p", "0"], 2),
    ("specdec_core", ["generate", "--prompt", " "], 2),
    ("specdec_core", ["generate", "--prompt", "Hi", "--max-new-tokens", "99999999999"], 2),
    ("specdec_core", ["bench", "--max-new-tokens", "9000"], 2),
    ("specdec_core", ["bench", "--stop-below", "2"], 2),
    ("specdec_core", ["bench", "--drafter", "nimbus-huge"], 2),
    ("specdec_core", ["bench", "--prompts", "no-such-file.txt"], 2),
    ("specdec_core", ["quality", "--text", "no-such-file.txt"], 2),
    ("specdec_core", ["quality", "--text", "README.md", "--device", "gpu"], 2),
    ("specdec_core.distill", ["--help"], 0), ("specdec_core.distill", ["train", "--lr", "0"], 2)])
def test_help_and_refusals_come_before_torch_is_imported(module, args, code):
    """Answers that need no model come at once, not after the seconds torch takes to import."""
    program = (f"import sys\nfrom {module}.__main__ import main\n"
               f"try:\n    code = main({args!r})\nexcept SystemExit as end:\n    code = end.code\n"
               "print('exit', code, 'torch' in sys.modules, file=sys.stderr)")
    run = python("-c", program)
    assert run.stderr.strip().splitlines()[-1] == f"exit {code} False", run.stderr


def test_the_most_new_tokens_the_command_line_takes_is_what_the_engine_allows(pair):
    """The command line refuses more new tokens than Nimbus-large's context holds before torch
    loads, at the bound the engine itself draws after a one-token prompt."""
    from specdec_core.catalog import TARGET_CONTEXT
    from specdec_core.checks import MOST_NEW_TOKENS, check_new_tokens
    from specdec_core.engine import check_request

    assert pair.context_length == TARGET_CONTEXT
    check_request(pair, [1], MOST_NEW_TOKENS, "speculative", MAX_GAMMA)
    with pytest.raises(ValueError, match="more than the"):
        check_request(pair, [1], MOST_NEW_TOKENS + 1, "speculative", MAX_GAMMA)
    check_new_tokens(MOST_NEW_TOKENS)
    with pytest.raises(ValueError, match=f"max_new_tokens must be at most {MOST_NEW_TOKENS:,}: "):
        check_new_tokens(MOST_NEW_TOKENS + 1)


def test_distill_train_asks_for_the_corpus_it_needs(tmp_path):
    from specdec_core.distill.__main__ import main as distill

    with pytest.raises(SystemExit) as end:
        distill(["train", "--data", str(tmp_path), "--shards", "3", "--val-shards", "1"])
    assert str(end.value.code) == (f"error: 4 corpus shards are missing from {tmp_path}; write them "
                                   "first with `python -m specdec_core.distill corpus` (about an "
                                   "hour on 2 cores), or run the stage `all`")
    assert not any(tmp_path.iterdir())  # nothing written, no model loaded


@pytest.mark.parametrize("stage, flag", [("corpus", "--data"), ("all", "--early-out"), ("train", "--out")])
def test_distill_says_at_once_when_it_cannot_write_where_it_is_told(tmp_path, stage, flag):
    """Before the hour of writing a corpus and training, not after it."""
    from specdec_core.distill.__main__ import main as distill

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    others = {"--data": tmp_path / "data", "--out": tmp_path / "out", "--early-out": tmp_path / "early"}
    folders = [str(arg) for name, folder in others.items() for arg in (name, folder if name != flag else blocker / "x")]
    with pytest.raises(SystemExit) as end:
        distill([stage, *folders])
    assert str(end.value.code).startswith(f"error: cannot write to {blocker / 'x'} (")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())  # no corpus written


@pytest.mark.parametrize("args", [["--shards", "0"], ["--batch", "0"], ["--new-tokens", "0"],
                                  ["--layers", "31"], ["--vocab", "0"], ["--vocab", "49153"],
                                  ["--lr", "nan"], ["--epochs", "0"], ["--seed", "-2"],
                                  ["--tv-weight", "-1"], ["--tv-weight", "inf"]])
def test_distill_refuses_settings_it_cannot_train_with(args, capsys):
    from specdec_core.distill.__main__ import parse_args

    with pytest.raises(SystemExit) as exit_:
        parse_args(["train", *args])
    assert exit_.value.code == 2
    assert f"argument {args[0]}:" in capsys.readouterr().err


def test_distill_takes_a_zero_rejection_weight():
    """0 trains on the soft cross-entropy alone: a setting, not a mistake."""
    from specdec_core.distill.__main__ import parse_args

    assert parse_args(["train", "--tv-weight", "0"]).tv_weight == 0.0


def test_compare_methods_reports_all_three(pair):
    report = compare_methods(pair, gamma=2, max_new_tokens=8, repeats=1, prompts=(PHRASE,),
                             reference=True)
    assert list(report.totals) == ["target", "speculative", "hf-assisted"]
    for name, totals in report.totals.items():
        assert totals.tokens > 0 and totals.seconds > 0 and totals.tokens_per_second > 0, name
    # end-of-text is banned on each side alike, so all three write the same number of tokens
    assert {t.tokens for t in report.totals.values()} == {8}
    assert report.totals["target"].target_passes == 8
    assert report.settings["gamma"] == 2 and report.settings["drafter"] == "early-exit-6"
    assert report.settings["stop_below"] == 0.0
    table = report.table()
    for label, (a, b) in {"speed-up, ours vs target-only:": ("speculative", "target"),
                          "ours vs transformers assisted (same pair):": ("speculative", "hf-assisted")
                          }.items():
        line = next(line for line in table.splitlines() if line.startswith(label))
        ratio = float(re.search(r"([\d.]+)x$", line).group(1))
        # tokens per second of one side over the other's, worked out from the totals
        by_hand = (report.totals[a].tokens / report.totals[a].seconds) / \
            (report.totals[b].tokens / report.totals[b].seconds)
        assert ratio == pytest.approx(by_hand, abs=0.006)


def test_compare_methods_refuses_a_request_too_long_before_timing_anything(pair, monkeypatch):
    def timed_anyway(*args, **kwargs):
        raise AssertionError("timed before the request was checked")
    monkeypatch.setattr(specdec_core.bench, "hf_assisted", timed_anyway)
    monkeypatch.setattr(specdec_core.bench, "generate", timed_anyway)
    with pytest.raises(ValueError, match="is more than the .* tokens a generation may use"):
        compare_methods(pair, max_new_tokens=100_000, repeats=1, prompts=(PHRASE, "Hi"))


def test_only_transformers_notes_on_its_own_assisted_call_are_dropped():
    log = logging.getLogger("transformers.generation.utils")

    def record(message):
        return log.makeRecord(log.name, logging.WARNING, __file__, 1, message, None, None)
    own = [record("Passing `generation_config` together with generation-related arguments=(…)"),
           record("A custom logits processor of type <class '…MinNewTokensLengthLogitsProcessor'> has …")]
    other = record("Setting `pad_token_id` to `eos_token_id`")
    with specdec_core.bench._quiet_assisted_call():
        assert [bool(log.filter(r)) for r in own] == [False, False] and log.filter(other)
    assert all(log.filter(r) for r in own)  # only during the call


def test_quality_on_a_text_file_matches_score_text(pair, tmp_path):
    text = "Your export failed because your workspace ran out of storage. Delete old exports first."
    path = tmp_path / "mine.txt"
    path.write_text(text, encoding="utf-8")
    run = cli("quality", "--text", str(path), "--drafters", "early-exit-6", "early-exit-6",
              "--device", "cpu")
    assert run.returncode == 0, run.stderr
    header, row = run.stdout.splitlines()  # a name given twice is scored once
    name, alpha, agree, positions = row.split()
    s = score_text(pair, text)
    assert name == "early-exit-6" and int(positions) == s.positions
    assert float(alpha) == pytest.approx(s.alpha, abs=5e-4)
    assert float(agree) == pytest.approx(s.argmax_agreement, abs=5e-4)
    assert "scored the first" not in run.stderr  # the whole text was read
    cut = cli("quality", "--text", str(path), "--drafters", "early-exit-6", "--max-tokens", "8",
              "--device", "cpu")
    assert cut.returncode == 0 and cut.stdout.splitlines()[1].split()[3] == "7"
    assert cut.stderr.strip().endswith("scored the first 8 tokens of the text, which holds more (--max-tokens)")


@pytest.mark.parametrize("content, extra, message", [
    (None, [], "no such file"),
    (b"\n \n", [], "is empty"),
    (b"\xff\xfe caf\xe9", [], "is not UTF-8 text"),
    (b"Hello there", ["--max-tokens", "1"], "max_tokens must be at least 2"),
    (b"Hello there", ["--drafters", "nimbus-huge"], "unknown drafter 'nimbus-huge'"),
    (b"Hello there", ["--drafters", "all", "nimbus-mini"], "'all' stands alone"),
])
def test_quality_bad_input_exits_2_with_one_error_line(tmp_path, content, extra, message):
    path = tmp_path / "mine.txt"
    if content is not None:
        path.write_bytes(content)
    run = cli("quality", "--text", str(path), "--device", "cpu", *extra)
    assert last_error(run).startswith("error: ") and message in run.stderr


def test_bench_runs_on_prompts_from_a_file(tmp_path):
    path = tmp_path / "prompts.txt"
    path.write_text("Thanks for your patience while\n\nOur printer keeps jamming when\n", encoding="utf-8")
    run = cli("bench", "--prompts", str(path), "--max-new-tokens", "4", "--repeats", "1",
              "--gamma", "2", "--drafter", "early-exit-6", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    assert "'prompts': 2" in run.stdout and "speed-up, ours vs target-only:" in run.stdout


@pytest.mark.parametrize("name", ["drafters.py", "speed.py", "gamma_sweep.py", "copy_drafts.py",
                                  "early_stop.py", "draft_step.py"])
def test_benchmark_scripts_name_a_missing_prompt_file(name, tmp_path):
    run = script(name, "--prompts", str(tmp_path / "none.txt"))
    assert last_error(run).endswith(f"error: no such file: {tmp_path / 'none.txt'}")


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")
                                         if p.name != "common.py"))
def test_every_benchmark_script_answers_help_without_measuring(name):
    """--help reads the script's usage; it must not run a measurement and rewrite its result."""
    saved = {p: p.read_bytes() for p in (ROOT / "assets" / "benchmarks").iterdir()}
    run = script(name, "--help")
    assert run.returncode == 0 and run.stdout.startswith("usage: "), run.stderr
    assert {p: p.read_bytes() for p in saved} == saved


def test_the_sweeps_redraw_takes_no_measuring_option():
    """--redraw draws the saved sweep again; a measuring option beside it would be ignored, so it
    is refused, before anything is written."""
    saved = {p: p.read_bytes() for p in (ROOT / "assets" / "benchmarks").iterdir()}
    for option in (["--tokens", "8"], ["--drafter", "early-exit-4"], ["--prompts", "x.txt"]):
        run = script("gamma_sweep.py", "--redraw", *option)
        assert last_error(run).endswith("error: --redraw measures nothing and takes no other option")
    assert {p: p.read_bytes() for p in saved} == saved


def test_benchmark_script_refuses_a_prompt_too_long_in_one_line(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("word " * 9000, encoding="utf-8")
    shipped = ROOT / "assets" / "benchmarks" / "speed.json"
    before = shipped.read_bytes()
    run = script("speed.py", "--prompts", str(path), "--tokens", "4", "--repeats", "1",
                 "--settings", "1", "--temperatures", "0")
    assert last_error(run, code=1).startswith(
        "error: prompt (9000 tokens) plus max_new_tokens (4) is more than")
    assert shipped.read_bytes() == before


def test_speed_settings_read_gamma_and_early_stop(tmp_path):
    from speed import setting
    assert setting("4") == (4, 0.0) and setting("8@0.5") == (8, 0.5)
    run = script("speed.py", "--settings", "4@high")
    assert run.returncode == 2 and "a setting is γ or γ@P, such as 4 or 8@0.5; got '4@high'" in run.stderr


def test_a_speed_run_replaces_only_the_rows_it_measured():
    from speed import merged
    row = {"drafter": "nimbus-mini", "gamma": 4, "stop_below": 0.0, "run": "old"}
    saved = [dict(row, temperature=0.0), dict(row, temperature=1.0), dict(row, gamma=1, temperature=1.0)]
    new = [dict(row, temperature=1.0, run="new")]
    assert merged(saved, new) == [saved[0], saved[2], *new]


def test_modelled_speedup_prices_each_round_by_its_drafts():
    """Two generations: rounds of 1 and 3 drafts writing 2 and 4 tokens, and one of 2 drafts
    writing 1. Cost: n·c + v(n) per round; target alone pays 1 per token."""
    from early_stop import modelled_speedup

    def result(*rounds):
        return types.SimpleNamespace(rounds=[types.SimpleNamespace(gamma=n) for n, _ in rounds],
                                     stats=types.SimpleNamespace(new_tokens=sum(t for _, t in rounds)))

    verify = {1: 1.0, 2: 1.5, 3: 1.6}
    got = modelled_speedup([result((1, 2), (3, 4)), result((2, 1))], 0.1, verify)
    spent = (0.1 + 1.0) + (0.3 + 1.6) + (0.2 + 1.5)
    assert got == pytest.approx(7 / spent)


def test_costs_are_priced_at_the_median_of_their_timings():
    """Three timings of (c, v): each figure's median, v taken n by n, so one stray timing of
    one pass does not price every setting."""
    from early_stop import median_costs
    timings = [(0.08, {1: 1.0, 2: 1.05}), (0.07, {1: 1.1, 2: 1.31}), (0.09, {1: 0.9, 2: 1.24})]
    assert median_costs(timings) == (0.08, {1: 1.0, 2: 1.24})


def test_the_sweeps_closed_form_is_set_beside_alpha_on_its_own_prompts():
    """sweep_alpha.py prints the saved sweep's measured tokens per pass beside the closed form at
    the sweep's own α and at α measured on the text of the prompts the sweep timed."""
    import json

    from specdec_core.sampling import expected_tokens_per_round

    saved = json.loads((ROOT / "assets" / "benchmarks" / "gamma_sweep.json").read_text())
    run = script("sweep_alpha.py", "--seeds", "1")
    assert run.returncode == 0, run.stderr
    alpha = float(re.search(r"own text from the sweep's 4 prompts: ([0-9.]+) \((\d+) positions", run.stdout)[1])
    assert 0.0 < alpha < 1.0
    rows = [line.split() for line in run.stdout.splitlines() if re.fullmatch(r"\s*\d( +[0-9.]+){3}", line)]
    assert [int(r[0]) for r in rows] == [int(r["gamma"]) for r in saved["rows"]]
    for (gamma, measured, held_out, here), row in zip(rows, saved["rows"]):
        assert float(measured) == round(row["tokens_per_pass"], 2)
        assert float(held_out) == round(expected_tokens_per_round(saved["alpha"], int(gamma)), 2)
        # α is printed to 3 decimals: at most 0.002 here, beside the 0.005 of printing to 2
        assert float(here) == pytest.approx(expected_tokens_per_round(alpha, int(gamma)), abs=0.008)
    other = script("sweep_alpha.py", "--drafter", "early-exit-4")
    assert last_error(other).endswith("error: the saved sweep is of nimbus-mini, not early-exit-4")


def test_copy_guess_takes_the_latest_earlier_match():
    from copy_drafts import copy_guess

    assert copy_guess([5, 6, 7, 5, 6], 2) == 7
    assert copy_guess([5, 6, 1, 5, 6, 2, 5, 6], 2) == 2  # the latest occurrence wins
    assert copy_guess([5, 6, 1, 5, 6, 2, 5, 6], 3) is None  # "2 5 6" never occurred before
    assert copy_guess([1, 2, 3], 2) is None and copy_guess([4], 2) is None


def test_copy_drafts_script_on_one_prompt(tmp_path):
    prompts = tmp_path / "one.txt"
    prompts.write_text("The nightly backup job reported an error code 17 this morning.\n")
    run = script("copy_drafts.py", "--prompts", str(prompts), "--drafter", "early-exit-4")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["greedy texts", "temperature-1 texts"]
    for line in lines:
        figures = dict(re.findall(r"([a-z -]+?) ([0-9.]+)(?:,|$)", line.split(": ", 1)[1]))
        assert 1 <= int(figures["positions"]) <= 96  # a text may end early, at EOS
        assert all(0.0 <= float(figures[k]) <= 1.0 for k in figures if k != "positions")
    bad = script("copy_drafts.py", "--match", "0")
    assert bad.returncode == 2 and "--match must be at least 1" in bad.stderr
