"""Shared by the command lines (``python -m posenc_lib.experiments``, ``python -m benchmarks``):
output paths checked before any work, and JSON written atomically under a unique temporary name.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["partial_path", "writable_output_path", "write_json_atomic"]


def writable_output_path(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` if a results file can be written there.

    Creates the missing parent folders (as the write would), then proves the folder writable by
    creating and removing an empty file with a unique name in it, so that a run fails here, in a
    second, rather than after its work. Raises :class:`ValueError` saying why otherwise.
    """
    path = Path(path).expanduser()
    if path.name in ("", ".", ".."):
        raise ValueError(f"{str(path)!r} names a folder, not a file")
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a file")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ValueError(f"cannot write {path}: {folder} is not a folder") from None
    except OSError as exc:
        raise ValueError(
            f"cannot create the folder {folder}: {exc.strerror or exc}"
        ) from None
    try:
        handle, probe = tempfile.mkstemp(
            dir=folder, prefix=f".{path.name}.", suffix=".probe"
        )
    except OSError as exc:
        raise ValueError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    os.close(handle)
    os.unlink(probe)
    return path


def partial_path(path: Path) -> Path:
    """Where an interrupted run keeps its finished part: ``a.json`` -> ``a.partial.json``."""
    return path.with_name(f"{path.stem}.partial{path.suffix or '.json'}")


def write_json_atomic(data: object, path: str | os.PathLike[str]) -> Path:
    """Write ``data`` as indented JSON to ``path`` atomically.

    The text goes to a temporary file with a unique name in the same folder (so concurrent
    writers never share one), is flushed to disk, then renamed over ``path``: a reader sees the
    old file or the new one, never a partial file. On any failure, an interrupt included, the
    temporary file is removed and ``path`` is left as it was. The file gets the permissions a
    plain ``open`` would give it (``0o666`` less the umask).
    """
    path = Path(path)
    text = (
        json.dumps(data, indent=1) + "\n"
    )  # before any file exists: a TypeError leaves none
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path
