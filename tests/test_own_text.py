"""Checking a drafter on the user's own text and prompts: score_text and the file readers."""
from __future__ import annotations

import re

import numpy as np
import pytest

from specdec_core.inputs import clip_prompt, read_prompts, read_text
from specdec_core.quality import score_text, text_overlap
from specdec_core.sampling import overlap

TEXT = ("Your export failed because your workspace ran out of storage. Delete old exports or "
        "upgrade your plan, then run the export again from the Reports tab. "
        "Ünïcode, emoji 🚀 and <b>tags</b> are plain text here.")


def test_the_target_drafting_for_itself_scores_one(self_pair):
    s = score_text(self_pair, TEXT, window=16)
    assert s.alpha == pytest.approx(1.0, abs=1e-5) and s.argmax_agreement == 1.0


@pytest.mark.parametrize("start", [1, 9])
def test_text_overlap_scores_the_predictions_of_the_tokens_from_start_on(pair, ids_of, start):
    """Position k compares p and q given the text before token start + k: the first predicts
    token `start` from ids[:start], the last predicts the text's last token. Computed here from
    one prefix at a time, not through text_overlap itself."""
    ids = ids_of(pair, TEXT)[:24]
    beta, agree = text_overlap(pair, ids, start)
    assert len(beta) == len(agree) == len(ids) - start
    for k, end in [(0, start), (len(ids) - start - 1, len(ids) - 1)]:
        p, q = (d[-1] for d in pair.distributions(ids[:end]))  # given ids[:end]: predicts ids[end]
        assert beta[k] == pytest.approx(overlap(p, q), abs=1e-5)
        assert agree[k] == (p.argmax() == q.argmax())


def test_windows_overlap_so_that_every_token_is_scored_with_half_a_window_before_it(pair, ids_of):
    """Every token but the text's first is scored once: those of the first window from all the
    text before them, each later one from the half window before its window's new half."""
    ids = ids_of(pair, TEXT)
    n, window = len(ids), 16
    assert n > 2 * window  # several windows, the last one short
    s = score_text(pair, TEXT, window=window)
    assert (s.tokens, s.more) == (n, False)
    assert s.positions == n - 1
    first_beta, first_agree = text_overlap(pair, ids[:window])
    rest = [text_overlap(pair, ids[i - 8:i + 8], start=8) for i in range(window, n, 8)]
    beta = np.concatenate([first_beta] + [b for b, _ in rest])
    agree = np.concatenate([first_agree] + [a for _, a in rest])
    assert len(beta) == n - 1
    assert s.alpha == pytest.approx(float(beta.mean()), abs=1e-6)
    assert s.argmax_agreement == pytest.approx(float(agree.mean()))
    assert 0.0 < s.alpha < 0.9  # early-exit-6 is a poor drafter


def test_max_tokens_reads_only_the_start(pair):
    s = score_text(pair, TEXT, window=16, max_tokens=20)
    assert s.tokens == 20 and s.more and s.positions == 19


MIXED = ("Order 12345 failed!!  Retry?\n\n  日本語のテキスト 😀😀 naïve café... "
         "x=1;y=22  <|endoftext|>  tabs\tand\u200bzero-width   spaces.\n") * 40


# text without a space between its words: CJK, one word a line, and code
UNSPACED = ("日本語のテキストです。「引用」、数字１２３と記号！" * 200, "word\nline\r\n\tend\n" * 200,
            "x=a_b.c(1,22);y=[x**2]#note\nz={'k':\"v\"}\n" * 60)


@pytest.mark.parametrize("limit", [1, 2, 7, 30, 64, 200, 5000])
@pytest.mark.parametrize("text", [MIXED, *UNSPACED], ids=["mixed", "cjk", "lines", "code"])
def test_the_first_tokens_are_read_without_splitting_the_rest(pair, text, limit):
    """Only a part of a long text is split into tokens, cut where no token can cross: its
    tokens are the whole text's first ones, whatever the cut falls next to."""
    from specdec_core.quality import leading_ids

    whole = pair.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    read = []

    def tokenizer(part, **kwargs):
        read.append(len(part))
        return pair.tokenizer(part, **kwargs)

    ids, more = leading_ids(tokenizer, text, limit)
    assert ids == whole[:limit] and more == (len(whole) > limit)
    if limit <= 30:  # a few tokens: the part read is a small share of the text
        assert max(read) < len(text) / 4, (max(read), len(text))


def test_no_cut_falls_next_to_a_character_python_does_not_know():
    """U+31350 is unassigned in Python's Unicode tables but a letter in newer ones, as the
    tokenizer may have them: no cut before or after it, where the plain rule would make two."""
    from specdec_core.quality import _cuts

    assert list(_cuts("ab.c d", 0, 6)) == [2, 4]
    assert list(_cuts("a\U00031350.b", 0, 4)) == []


@pytest.mark.parametrize("text, window, max_tokens, message", [
    ("Hi", 512, 8192, "at least two tokens"),
    (TEXT, 1, 8192, "at least 2"),
    (TEXT, 512, 1, "at least 2"),
])
def test_unscorable_requests_say_why(pair, text, window, max_tokens, message):
    with pytest.raises(ValueError, match=message):
        score_text(pair, text, window=window, max_tokens=max_tokens)


def test_a_byte_order_mark_is_not_text(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffHello there".encode("utf-8"))
    assert read_text(path) == "Hello there"


def test_prompts_are_the_non_blank_lines(tmp_path):
    path = tmp_path / "prompts.txt"
    path.write_text("  First prompt  \n\n\t\n\u200b\u2060 \nSecond, with <html> & ünïcode\r\n", encoding="utf-8")
    assert read_prompts(path) == ("First prompt", "Second, with <html> & ünïcode")


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b" \n\t\n", "is empty"),
    (b"caf\xe9 latin-1", "is not UTF-8 text (byte 3)"),
    ("folder", "is a folder: give a text file"),
])
def test_bad_files_say_why(tmp_path, content, message):
    path = tmp_path / "input.txt"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(message)):
        read_text(path)
    with pytest.raises(ValueError, match=re.escape(message)):
        read_prompts(path)


@pytest.mark.parametrize("text, limit, kept", [
    ("short enough", 12, "short enough"),
    ("one two three four five", 20, "one two three four"),  # cut after the last whole word
    ("one two three four five", 19, "one two three four"),  # the cut falls on a space
    ("abcdefghij klmnopqrstuvwxyz", 20, "abcdefghij klmnopqrs"),  # no word ends late enough
    ("x" * 50, 40, "x" * 40),
    ("héllo wörld ünïcode", 14, "héllo wörld"),
    ("   \n\t  more", 5, ""),  # only blanks fit: nothing is left to continue
])
def test_a_long_prompt_is_cut_to_fit(text, limit, kept):
    assert clip_prompt(text, limit) == kept
    assert len(clip_prompt(text, limit)) <= limit


def test_text_overlap_refuses_a_start_before_the_first_prediction():
    # start 0 would slice p[-1:] and score only the last position, without a word
    with pytest.raises(ValueError, match="start must be at least 1"):
        text_overlap(None, [1, 2, 3], start=0)


def test_a_drafter_table_row_is_measured_as_its_columns_say(pair, monkeypatch, tmp_path):
    """α is the mean Σ min(p, q) over the texts' scored positions, greedy agreement how often
    the argmaxes agree on the greedy texts (not on the others), best γ the closed form's at the
    row's c and v; a saved table reads back poorest first."""
    from specdec_core import quality

    monkeypatch.setattr(quality, "step_cost", lambda pair, context: 0.1)
    ids = pair.tokenizer(TEXT[:200])["input_ids"]
    greedy = pair.tokenizer("Your export failed because your account was locked.")["input_ids"]
    verify = {g: 1.0 + 0.1 * g for g in range(1, 9)}
    row = quality.measure(pair, [(ids, 3)], greedy=[(greedy, 2)], verify=verify)
    p, q = (d.astype(np.float64) for d in pair.distributions(ids))
    beta = np.minimum(p, q).sum(-1)[2:-1]  # the rows that predict ids[3:]
    gp, gq = pair.distributions(greedy)
    agree = (gp.argmax(-1) == gq.argmax(-1))[1:-1]  # the rows that predict greedy[2:]
    assert row.positions == len(ids) - 3 == len(beta)
    assert row.alpha == pytest.approx(beta.mean(), abs=1e-5)
    assert row.greedy_agreement == pytest.approx(agree.mean())
    gamma = max(range(1, 9), key=lambda g: (1 - row.alpha ** (g + 1)) / (1 - row.alpha) / (0.1 * g + verify[g]))
    assert (row.best_gamma, row.cost_ratio, row.verify_cost) == (gamma, 0.1, verify[gamma])
    worse = quality.DrafterQuality("worse", row.alpha / 2, 0.1, 0.1, 1, 1.0, 1.1, 9)
    quality.save_table([row, worse], tmp_path / "drafters.json")
    assert [r.drafter for r in quality.drafter_table(tmp_path / "drafters.json")] == ["worse", row.drafter]
