"""Finding and loading model weights: a local directory or the local Hugging Face cache, never the hub.

``HF_HUB_OFFLINE=1`` is set before transformers is imported by the backends, and every
``from_pretrained`` call passes ``local_files_only=True``. A model that is not on disk is a
``ModelNotFound`` error naming the path that was tried.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from core.errors import UserFacingError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WEIGHT_PATTERNS = ("*.safetensors", "*.bin")
FULL_HASH_LIMIT = 2 * 1024**3  # above this, hash size + first and last 64 MiB of each file
SAMPLE = 64 * 1024**2


class ModelNotFound(UserFacingError, FileNotFoundError):
    """No weights at the given path (nor in the local Hugging Face cache when offline)."""


def resolve_model_path(model: str) -> Path:
    """A directory on disk, or a hub id (``org/name``) already in the local Hugging Face cache."""
    if not model or not str(model).strip():
        raise ModelNotFound("no model given: pass a local model directory (--model PATH)")
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").exists() and not (path / "adapter_config.json").exists():
            raise ModelNotFound(f"{path.resolve()} is a directory but holds no config.json: not a model directory")
        return path.resolve()
    if path.exists():
        raise ModelNotFound(f"{path.resolve()} is a file; give the model directory that holds config.json")
    if re.fullmatch(r"[\w.\-]+/[\w.\-]+", str(model)) and not str(model).startswith((".", "/")):
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(str(model), local_files_only=True))
        except Exception:
            pass
    cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HF_HOME") or "~/.cache/huggingface"
    raise ModelNotFound(
        f"model not found: no directory at {path.resolve()} and {model!r} is not in the local Hugging Face "
        f"cache ({cache}); downloads are disabled, copy the model there first"
    )


def disable_progress_bars():
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:
        pass


def model_revision(path) -> str:
    """Which weights these are: the hub commit of a cached snapshot or of its config, else a hash.

    - ``.../snapshots/<40 hex>/`` (a Hugging Face cache snapshot): ``git:<commit>``;
    - a ``_commit_hash`` in config.json: ``git:<commit>``;
    - else ``sha256:<hex>`` of the weight files (name, size and bytes; files over 2 GiB in total are
      sampled: size plus first and last 64 MiB, written ``sha256-sampled:``).
    """
    path = Path(path)
    match = re.search(r"snapshots/([0-9a-f]{40})(?:/|$)", path.as_posix())
    if match:
        return f"git:{match.group(1)}"
    config = path / "config.json"
    if config.exists():
        try:
            commit = json.loads(config.read_text()).get("_commit_hash")
        except (OSError, ValueError):
            commit = None
        if commit:
            return f"git:{commit}"
    files = sorted({p for pattern in WEIGHT_PATTERNS for p in path.glob(pattern) if p.is_file()})
    if not files:
        return ""
    total = sum(p.stat().st_size for p in files)
    sampled = total > FULL_HASH_LIMIT
    digest = hashlib.sha256()
    for p in files:
        size = p.stat().st_size
        digest.update(f"{p.name}\0{size}\0".encode())
        with open(p, "rb") as fh:
            if sampled and size > 2 * SAMPLE:
                digest.update(fh.read(SAMPLE))
                fh.seek(size - SAMPLE)
                digest.update(fh.read(SAMPLE))
            else:
                for chunk in iter(lambda: fh.read(1024 * 1024), b""):
                    digest.update(chunk)
    return f"{'sha256-sampled' if sampled else 'sha256'}:{digest.hexdigest()}"


def resolve_device(requested=None) -> str:
    """``None``/``auto``: cuda when available, else cpu. An explicit device must exist."""
    import torch

    requested = (requested or "auto").strip().lower()
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {requested!r} requested but CUDA is not available on this machine")
    if requested == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("device 'mps' requested but MPS is not available on this machine")
    if not re.fullmatch(r"cpu|mps|cuda(:\d+)?", requested):
        raise ValueError(f"unknown device {requested!r}; use auto, cpu, cuda or cuda:N")
    return requested


def torch_dtype(name, device):
    """``auto``: float16 on cuda (bfloat16 if supported), float32 on cpu; or an explicit name."""
    import torch

    name = (name or "auto").lower()
    if name == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    table = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
    if name not in table:
        raise ValueError(f"unknown dtype {name!r}; use auto, {', '.join(table)}")
    return table[name]
