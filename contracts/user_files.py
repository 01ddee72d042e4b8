"""Reading a file the user named (a policy bundle, an evidence file, an envelope, an edit, a scripted model): a
missing or unreadable file is one error line naming the file and how to fix it, raised as the caller's own error
class, so every command reports it alike and never as a traceback."""

from __future__ import annotations

from pathlib import Path

from .errors import InputError


def read_user_file(path: Path, what: str, fix: str, error: type[Exception] = InputError) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in the message ("policy bundle"), ``fix`` says what to pass
    instead ("pass --policy with an existing bundle file")."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{what} not found: {path} ({fix})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read {what} {path}: {exc}") from None
