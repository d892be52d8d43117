"""The folder that holds the converted target: checked before anything is written there,
written so that a copy is never seen half done, and cleared of copies that killed
conversions left behind."""
from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from .catalog import ROOT, SETUP_COMMAND, ModelFileError
from .digests import check_digest, file_digest

CONVERTED_MB = 538  # the float32 safetensors copy of Nimbus-large (10**6 bytes a MB, as README counts)
WEIGHTS = "model.safetensors"
DIGEST = "model.safetensors.sha256"  # beside the weights: their SHA-256 when they were written


def check_weights(dest: Path) -> None:
    """A ValueError unless the converted copy in `dest` holds the weights it was written with."""
    digest = dest / DIGEST
    check_digest(dest / WEIGHTS, digest.read_text().strip() if digest.is_file() else None)


def check_writable(cache: Path) -> None:
    """`cache` exists and this user may write there, or a ModelFileError says so."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
        usable = os.access(cache, os.W_OK | os.X_OK)
    except FileExistsError:
        usable, why = False, "it is a file, not a folder"
    except OSError as err:
        usable, why = False, err.strerror
    else:
        why = "not writable"
    if not usable:
        raise ModelFileError(f"The model cache {cache} cannot hold the converted target ({why}). "
                             "Point `NIMBUS_MODEL_CACHE` at a folder you can write (for example "
                             "`export NIMBUS_MODEL_CACHE=$HOME/nimbus-models`) and start the app or the "
                             f"command again, or unset it to use {ROOT / '.models'}.")


def save_whole(model, tokenizer, dest: Path) -> None:
    """Save into a sibling folder and rename it to `dest`, so `dest` is never half written."""
    _remove_abandoned(dest)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / DIGEST).write_text(file_digest(tmp / WEIGHTS))  # weights in one file, as loaded
    except Exception as err:  # safetensors reports a full disk as its own error type
        shutil.rmtree(tmp, ignore_errors=True)  # a partial copy would only take more space
        if not _disk_full(err):
            raise
        raise ModelFileError(
            f"The disk holding {dest.parent} is full: the float32 copy of the target needs about "
            f"{CONVERTED_MB} MB free there (free now: {_free_mb(dest.parent)} MB). Free some space, "
            f"or set `NIMBUS_MODEL_CACHE` to a folder on a disk with room, then run: `{SETUP_COMMAND}`"
        ) from err
    shutil.rmtree(dest, ignore_errors=True)
    try:
        os.replace(tmp, dest)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _remove_abandoned(dest: Path) -> None:
    """Delete half-written copies left by conversions that were killed (their process is gone)."""
    for tmp in dest.parent.glob(dest.name + ".tmp*"):
        pid = tmp.name.rpartition(".tmp")[2]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(tmp, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, and someone else's
        pass
    return True


def _disk_full(err: BaseException) -> bool:
    """Whether a save failed because the disk is full (an OSError, or safetensors' own error
    that carries only the OS message)."""
    return getattr(err, "errno", None) == errno.ENOSPC or "No space left on device" in str(err)


def _free_mb(folder: Path) -> int:
    return shutil.disk_usage(folder).free // 10**6
