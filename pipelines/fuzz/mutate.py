"""Attacker-style mutations of a result file (bytes in, bytes out), deterministic by seed.

Every mutation takes the file's bytes and a `random.Random` and returns new bytes. They are the
things a club's spreadsheet, mail client or a hostile sender do to a file: cut it short, lose or
repeat lines, change its encoding or line endings, blow up a number, a date or a field, strip
the tags a format relies on. `mutate` stacks one to three of them; the names of the ones applied
are returned so a crash can be told apart by what produced it.
"""
from __future__ import annotations

import random
import re
from typing import Callable

HUGE = b"99999999999999999999"
LONG_FIELD = 200 * 1024  # a 200 KB field: over the csv module's default 128 KiB field limit

_DIGITS = re.compile(rb"\d+")
_ISO_DATE = re.compile(rb"(\d{4})([-./])(\d{1,2})([-./])(\d{1,2})")
_DMY_DATE = re.compile(rb"(\d{1,2})/(\d{1,2})/(\d{4})")
_JP_DATE = re.compile("([0-9０-９]{4})年([0-9０-９]{1,2})月([0-9０-９]{1,2})日".encode())
_TAG = re.compile(rb"^\[[A-Za-z]+ [^\n]*\]\r?$|<([A-Z_]+)[^>]*>[^<\n]*</\1>|^#? ?[A-Za-z_ ]+: ?[^\n]*$", re.M)
_FULLWIDTH = {ord(str(d)): chr(0xFF10 + d) for d in range(10)}


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines)


def _pick_line(lines: list[bytes], rng: random.Random, nonblank: bool = True) -> int:
    candidates = [i for i, line in enumerate(lines) if line.strip()] if nonblank else list(range(len(lines)))
    return rng.choice(candidates) if candidates else 0


def _sub_one(pattern: re.Pattern, data: bytes, rng: random.Random, replace: Callable[[re.Match], bytes]) -> bytes:
    """Replace one randomly chosen match of `pattern`."""
    matches = list(pattern.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    return data[: m.start()] + replace(m) + data[m.end():]


# -- the mutations -------------------------------------------------------------------------------


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)] if data else data


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[_pick_line(lines, rng)]
    return _join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    lines.insert(i, lines[i])
    return _join(lines)


def shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    if rng.random() < 0.5:
        rng.shuffle(lines)
    else:  # a window of a few lines, as a copy-paste accident does
        start = rng.randrange(len(lines))
        window = lines[start:start + rng.randint(2, 6)]
        rng.shuffle(window)
        lines[start:start + len(window)] = window
    return _join(lines)


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(buf))
        buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf)


def huge_number(data: bytes, rng: random.Random) -> bytes:
    sign = b"-" if rng.random() < 0.2 else b""
    return _sub_one(_DIGITS, data, rng, lambda m: sign + HUGE)


def negative_or_zero(data: bytes, rng: random.Random) -> bytes:
    return _sub_one(_DIGITS, data, rng, lambda m: rng.choice([b"-" + m.group(0), b"0", b"-0", b"00" + m.group(0)]))


def odd_number(data: bytes, rng: random.Random) -> bytes:
    """A number written the way a spreadsheet or a person might: decimals, exponent, thousands."""
    return _sub_one(_DIGITS, data, rng, lambda m: rng.choice(
        [m.group(0) + b".5", m.group(0) + b"e3", b"1,000", b"+" + m.group(0), m.group(0) + b" ", b"NaN", b"inf", b"\xef\xbc\x8d1"]))


def _with_year(year: bytes) -> Callable[[bytes, random.Random], bytes]:
    def mutation(data: bytes, rng: random.Random) -> bytes:
        patterns = [p for p in (_ISO_DATE, _DMY_DATE, _JP_DATE) if p.search(data)]
        if not patterns:
            return data
        pattern = rng.choice(patterns)
        if pattern is _DMY_DATE:
            return _sub_one(pattern, data, rng, lambda m: m.group(1) + b"/" + m.group(2) + b"/" + year)
        if pattern is _JP_DATE:
            return _sub_one(pattern, data, rng, lambda m: year + "年".encode() + m.group(2) + "月".encode() + m.group(3) + "日".encode())
        return _sub_one(pattern, data, rng, lambda m: year + m.group(2) + m.group(3) + m.group(4) + m.group(5))
    return mutation


date_1970 = _with_year(b"1970")
date_9999 = _with_year(b"9999")


def impossible_date(data: bytes, rng: random.Random) -> bytes:
    return _sub_one(_ISO_DATE, data, rng, lambda m: m.group(1) + m.group(2) + rng.choice([b"02", b"13", b"00"])
                    + m.group(4) + rng.choice([b"30", b"31", b"00", b"32"]))


def fullwidth_digits(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    i = _pick_line(lines, rng)
    lines[i] = lines[i].translate(_FULLWIDTH) if rng.random() < 0.5 else re.sub(
        r"\d", lambda m: m.group(0).translate(_FULLWIDTH) if rng.random() < 0.3 else m.group(0), lines[i])
    return "\n".join(lines).encode("utf-8", errors="surrogateescape")


def long_field(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    line = lines[i]
    at = rng.randrange(len(line) + 1)
    filler = rng.choice([b"x", b"9", "あ".encode(), b" "]) * (LONG_FIELD // 3 if rng.random() < 0.5 else LONG_FIELD)
    lines[i] = line[:at] + filler + line[at:]
    return _join(lines)


def stray_quotes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        buf.insert(rng.randrange(len(buf) + 1), ord('"'))
    return bytes(buf)


def many_commas(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    lines[i] = lines[i] + b"," * rng.choice([3, 50, 1000, 5000])
    return _join(lines)


def reencode(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", errors="replace")
    choice = rng.choice(["shift_jis", "latin-1", "utf-16", "utf-16-le", "utf-8-sig", "cp1252", "euc_jp"])
    return text.encode(choice, errors="replace")


def bom(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf"]) + data


def nul_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        buf.insert(rng.randrange(len(buf) + 1), 0)
    return bytes(buf)


def crlf(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def cr_only(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def remove_blank_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    blanks = [i for i, line in enumerate(lines) if not line.strip()]
    if not blanks:
        return data
    drop = set(blanks) if rng.random() < 0.5 else {rng.choice(blanks)}
    return _join([line for i, line in enumerate(lines) if i not in drop])


def remove_tag(data: bytes, rng: random.Random) -> bytes:
    """Drop one tag line / element / `key: value` header, or the CSV header line."""
    matches = list(_TAG.finditer(data))
    if not matches or rng.random() < 0.15:
        lines = _lines(data)
        return _join(lines[1:])
    m = rng.choice(matches)
    return data[: m.start()] + data[m.end():]


def empty_field(data: bytes, rng: random.Random) -> bytes:
    """Blank out one field of a delimited line (or one word of a free-text line)."""
    lines = _lines(data)
    i = _pick_line(lines, rng)
    sep = next((c for c in (b",", b";", b"\t") if c in lines[i]), b" ")
    fields = lines[i].split(sep)
    # never a field spanning a CR line break, never the only field of a line: either would delete
    # whole lines, which a parser cannot tell from a shorter file (two false "silent losses")
    blankable = [k for k, f in enumerate(fields) if b"\r" not in f.rstrip(b"\r")]
    if len(fields) < 2 or not blankable:
        return data
    k = rng.choice(blankable)
    fields[k] = b"\r" if fields[k].endswith(b"\r") else b""
    lines[i] = sep.join(fields)
    return _join(lines)


def swap_fields(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    sep = b"," if b"," in lines[i] else b" "
    fields = lines[i].split(sep)
    if len(fields) > 1:
        a, b = rng.sample(range(len(fields)), 2)
        fields[a], fields[b] = fields[b], fields[a]
    lines[i] = sep.join(fields)
    return _join(lines)


def odd_whitespace(data: bytes, rng: random.Random) -> bytes:
    """Tabs, no-break and ideographic spaces, trailing blanks: what word processors leave."""
    text = data.decode("utf-8", errors="surrogateescape")
    spaces = [m.start() for m in re.finditer(r" ", text)]
    if not spaces:
        return (text + rng.choice(["\t", "\u3000", " "])).encode("utf-8", errors="surrogateescape")
    for at in rng.sample(spaces, min(len(spaces), rng.randint(1, 5))):
        text = text[:at] + rng.choice(["\t", "\u00a0", "\u3000", "  ", "\u200b"]) + text[at + 1:]
    return text.encode("utf-8", errors="surrogateescape")


def control_chars(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        junk = rng.choice([b"\x1b[31m", b"\x0c", b"\x7f", "\u202e".encode(), "\U0001f004".encode(), b"\xff\xfe\xfd",
                           "\u0301".encode(), b"\x0b", b"\\", b"'; drop table awards; --", b"../../etc/passwd"])
        buf[rng.randrange(len(buf) + 1):0] = junk
    return bytes(buf)


def repeat_file(data: bytes, rng: random.Random) -> bytes:
    return data + (b"\n" if rng.random() < 0.5 else b"") + data


def splice_seed(data: bytes, rng: random.Random, other: bytes = b"") -> bytes:
    """Lines of another seed file (of any format) pasted into this one."""
    mine, theirs = _lines(data), _lines(other or data)
    start = rng.randrange(len(theirs))
    chunk = theirs[start:start + rng.randint(1, 8)]
    at = rng.randrange(len(mine) + 1)
    return _join(mine[:at] + chunk + mine[at:])


def empty_or_header_only(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    return rng.choice([b"", b"\n", b"\n\n\n", lines[0], lines[0] + b"\n", b"\xef\xbb\xbf", b" \t\n"])


MUTATIONS: dict[str, Callable] = {
    "truncate": truncate,
    "delete_line": delete_line,
    "duplicate_line": duplicate_line,
    "shuffle_lines": shuffle_lines,
    "flip_bytes": flip_bytes,
    "huge_number": huge_number,
    "negative_or_zero": negative_or_zero,
    "odd_number": odd_number,
    "date_1970": date_1970,
    "date_9999": date_9999,
    "impossible_date": impossible_date,
    "fullwidth_digits": fullwidth_digits,
    "long_field": long_field,
    "stray_quotes": stray_quotes,
    "many_commas": many_commas,
    "reencode": reencode,
    "bom": bom,
    "nul_bytes": nul_bytes,
    "crlf": crlf,
    "cr_only": cr_only,
    "remove_blank_lines": remove_blank_lines,
    "remove_tag": remove_tag,
    "empty_field": empty_field,
    "swap_fields": swap_fields,
    "odd_whitespace": odd_whitespace,
    "control_chars": control_chars,
    "repeat_file": repeat_file,
    "splice_seed": splice_seed,
    "empty_or_header_only": empty_or_header_only,
}
# heavy mutations (a 200 KB field, thousands of commas) are stacked at most once per file
_HEAVY = {"long_field", "many_commas", "repeat_file"}
# mutations that make the file unreadable as a whole: they end a stack
_FINAL = {"reencode", "empty_or_header_only", "truncate"}


def mutate(data: bytes, rng: random.Random, others: list[bytes] = ()) -> tuple[bytes, list[str]]:
    """Apply 1–3 mutations; returns (mutated bytes, names applied in order)."""
    names = list(MUTATIONS)
    applied: list[str] = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        name = rng.choice(names)
        if name in _HEAVY and any(a in _HEAVY for a in applied):
            continue
        if name == "splice_seed":
            data = splice_seed(data, rng, rng.choice(list(others)) if others else b"")
        else:
            data = MUTATIONS[name](data, rng)
        applied.append(name)
        if name in _FINAL:
            break
    return data, applied
