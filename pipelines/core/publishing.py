"""What every publication needs: a folder replaced in one step, and input made harmless."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def replace_folder(target: Path, files: dict[str, str]) -> None:
    """Write `files` (name → text) as the folder `target`, swapped in by rename: a reader sees
    the old publication or the new one, never half of one."""
    tmp = target.with_name(f".{target.name}.tmp")
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def spreadsheet_safe(text: str) -> str:
    """A text cell that a spreadsheet will not run as a formula (OWASP CSV injection advice)."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def markdown_safe(text: str) -> str:
    """Text for a Markdown table cell: no table breaks, no inline HTML, no links."""
    for char in "\\|`*_[]<>#":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")
