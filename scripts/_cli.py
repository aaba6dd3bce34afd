"""Shared by the command lines (``scripts/experiments.py``, ``python -m benchmarks``,
``scripts/execute_notebooks.py``, ``scripts/make_colab.py``): output paths checked before any
work, files written atomically under a unique temporary name, Ctrl-C as one line.

A careful Unix tool's rules for an output path, which :func:`writable_output_path` checks and
:func:`write_atomic` follows:

* a name that ends in ``/`` names a folder: refused (never a file named after the folder);
* a name longer than the file system allows is refused with the limit, not a traceback;
* a symbolic link is written through: its target gets the new content, the link stays;
* an existing folder, FIFO, socket or device is refused: only a regular file is replaced;
* an existing file keeps its permission bits (a ``0600`` file stays ``0600``); a new one gets
  ``0666`` less the umask, as ``open`` would give it;
* the content goes to a temporary file beside the target, is flushed to disk, then renamed over
  it: on a full disk, an error or Ctrl-C at any moment the previous file is left as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "Interrupt",
    "OutputError",
    "cpu_model",
    "interrupt_once",
    "load_average",
    "partial_path",
    "report_write_error",
    "writable_output_path",
    "write_atomic",
    "write_json_atomic",
]

#: Characters of the target's name kept in its temporary file's name (the rest of a long name
#: would push the temporary name past the file system's limit).
_TEMP_NAME_CHARS = 100


class OutputError(ValueError):
    """An output path that cannot be written (a ValueError: argparse reports it as usage)."""


def _kind(mode: int) -> str:
    for test, name in [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ]:
        if test(mode):
            return name
    return "not a regular file"


def _target(path: Path) -> Path:
    """Where writing ``path`` lands: the final target of a symbolic link, else ``path``."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def writable_output_path(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` if a results file can be written there.

    Applies the rules of this module's docstring, creates the missing parent folders (as the
    write would), then proves the folder writable by creating and removing an empty file with a
    unique name in it, so that a run fails here, in a second, rather than after its work.
    Raises :class:`OutputError` (a ValueError) saying why otherwise.
    """
    text = os.fspath(path)
    if text == "" or text.endswith(("/", os.sep)):
        raise OutputError(f"{text!r} names a folder, not a file")
    path = Path(text).expanduser()
    if path.name in ("", ".", ".."):
        raise OutputError(f"{text!r} names a folder, not a file")
    # a name longer than the file system allows (ENAMETOOLONG later, even from is_symlink)
    existing = path.parent
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent
    try:
        limit = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):  # pragma: no cover - no pathconf on this platform
        limit = 255
    size = len(os.fsencode(path.name))
    if size > limit:
        raise OutputError(
            f"the file name {path.name[:40]}... is {size} bytes long, over this file "
            f"system's limit of {limit}"
        )
    target = _target(path)
    try:
        mode = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):  # the folder checks below say which
        mode = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        shown = path if target == path else f"{path} (a link to {target})"
        if stat.S_ISDIR(mode):
            raise OutputError(f"{shown} is a folder, not a file")
        raise OutputError(f"{shown} is {_kind(mode)}: only a regular file is replaced")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"cannot write {path}: {folder} is not a folder") from None
    except OSError as exc:
        raise OutputError(
            f"cannot create the folder {folder}: {exc.strerror or exc}"
        ) from None
    try:
        handle, probe = tempfile.mkstemp(
            dir=folder, prefix=_temp_prefix(target), suffix=".probe"
        )
    except OSError as exc:
        raise OutputError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    os.close(handle)
    os.unlink(probe)
    return path


def _temp_prefix(target: Path) -> str:
    return f".{target.name[:_TEMP_NAME_CHARS]}."


def partial_path(path: Path) -> Path:
    """Where an interrupted run keeps its finished part: ``a.json`` -> ``a.partial.json``."""
    return path.with_name(f"{path.stem}.partial{path.suffix or '.json'}")


def write_atomic(content: str | bytes, path: str | os.PathLike[str]) -> Path:
    """Write ``content`` to ``path`` atomically, by the rules of this module's docstring.

    The content goes to a temporary file with a unique name beside the target (so concurrent
    writers never share one), is flushed to disk, gets the target's permission bits (or those
    a plain ``open`` would give a new file), then is renamed over the target: a reader sees the
    old file or the new one, never a part. On any failure, a full disk or an interrupt included,
    the temporary file is removed, the exception propagates, and the target is as it was.
    Returns the path written (the target of a symbolic link).
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    target = _target(Path(path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=_temp_prefix(target), suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def write_json_atomic(data: object, path: str | os.PathLike[str]) -> Path:
    """Write ``data`` as indented JSON to ``path`` with :func:`write_atomic`.

    The text is made before any file exists: data that is not JSON (a TypeError) leaves none.
    """
    return write_atomic(json.dumps(data, indent=1) + "\n", path)


class Interrupt:
    """What :func:`interrupt_once` saw: ``pressed`` is True once Ctrl-C was pressed."""

    pressed = False


@contextlib.contextmanager
def interrupt_once() -> Iterator[Interrupt]:
    """Inside: the first Ctrl-C raises KeyboardInterrupt, later ones are ignored.

    So that the handler of the first (which saves the finished work, then prints one line) is
    not cut short by a second Ctrl-C pressed a moment later. Yields an :class:`Interrupt` whose
    ``pressed`` tells a caller that the exception it caught came from Ctrl-C, even where a
    library turned the KeyboardInterrupt into another exception while cleaning up. The previous
    SIGINT handler is restored on exit. Outside the main thread (where signals cannot be
    handled) it does nothing.
    """
    state = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def first(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        state.pressed = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)


def report_write_error(prog: str, path: object, exc: OSError, lost: str) -> int:
    """Print one line for a failed write (``lost``: what is lost, or where it was kept); 1."""
    print(
        f"{prog}: cannot write {path}: {exc.strerror or exc}; {lost}", file=sys.stderr
    )
    return 1


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (Linux), else what :mod:`platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return platform.processor() or platform.machine() or "unknown"


def load_average() -> float | None:
    """The 1-minute load average now, rounded (None where the platform has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # pragma: no cover - no load average here
        return None
