"""The `key: value` settings file, shared by the rule systems that read one (JCBL and Swedish
event files): decoding, comments, one setting per line, unknown and repeated keys.

Bad input never raises: each problem is a (location, reason) pair naming the line, what was
expected and what was found. The caller decides what the keys mean.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from pipelines.core.text import clip, physical_lines, too_long, unicode_marked

_KEY = re.compile(r"[^\W\d][\w .-]*", re.UNICODE)
_SEPARATOR = re.compile(r"[:=]")


def decode(data: bytes, fallbacks: tuple[str, ...] = ("cp1252",)) -> tuple[str, str]:
    """Text of a file and the encoding that read it: UTF-8 (a BOM is fine), then the fallbacks in
    order (e.g. Shift_JIS for Japanese, cp1252 / latin-1 for Swedish programs). NFKC-normalised, so
    full-width digits and colons typed in Asian input modes read as ASCII. A file with a UTF-16 or
    UTF-32 byte order mark (Windows' "Unicode") is read as its mark says."""
    marked = unicode_marked(data)
    if marked is not None:
        return unicodedata.normalize("NFKC", marked[0]), marked[1]
    for enc in ("utf-8-sig",) + tuple(fallbacks):
        try:
            return unicodedata.normalize("NFKC", data.decode(enc)), enc
        except (UnicodeDecodeError, LookupError):
            continue
    return unicodedata.normalize("NFKC", data.decode("utf-8", errors="replace")), "utf-8 (undecodable bytes replaced)"


@dataclass
class KeyValues:
    values: dict[str, tuple[int, str]] = field(default_factory=dict)  # key → (line number, value)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (location, reason)
    encoding: str = "utf-8"

    def where(self, key: str) -> str:
        return f"line {self.values[key][0]}" if key in self.values else key

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values[key][1] if key in self.values else default


def normalise_key(key: str) -> str:
    return key.strip().lower().replace(" ", "_").replace("-", "_")


def read_key_values(data: bytes, known: dict[str, str], aliases: dict[str, str] | None = None,
                    fallbacks: tuple[str, ...] = ("cp1252",), example: str = "date: 2024-06-02",
                    comment: str = "#") -> KeyValues:
    """Parse `key: value` lines (also `key = value`); `# ...` is a comment. `known` maps each key to
    its description (used in the messages); `aliases` maps other spellings to a known key."""
    aliases = {normalise_key(k): v for k, v in (aliases or {}).items()}
    text, encoding = decode(data, fallbacks)
    out = KeyValues(encoding=encoding)
    if "\x00" in text:  # no text file holds a NUL byte: one reason, not one per line of noise
        out.problems.append(("whole file", f"expected a text file of 'key: value' lines (e.g. '{example}'), found binary "
                                           "data (NUL bytes): is this the right file? Save it as text and send it again"))
        return out
    for no, raw in enumerate(physical_lines(text), start=1):  # numbered as an editor numbers them
        long = too_long(raw)
        if long:
            out.problems.append((f"line {no}", long))
            continue
        line = raw.split(comment, 1)[0].strip()
        if not line:
            continue
        # the key is everything before the first ':' or '=' (one pass; a regex with a lazy key
        # followed by optional spaces backtracks quadratically over a long line of spaces)
        sep = _SEPARATOR.search(line)
        name = line[: sep.start()].strip() if sep else ""
        if not sep or not _KEY.fullmatch(name):
            out.problems.append((f"line {no}", f"expected 'key: value' (e.g. '{example}'), found {clip(raw.strip())!r}"))
            continue
        key = normalise_key(name)
        key = aliases.get(key, key)
        value = line[sep.end():].strip()
        if key not in known:
            out.problems.append((f"line {no}", f"unknown setting {clip(name)!r}; expected one of: {', '.join(known)}"))
        elif key in out.values:
            out.problems.append((f"line {no}", f"setting {key!r} given twice (first on line {out.values[key][0]})"))
        else:
            out.values[key] = (no, value)
    return out
