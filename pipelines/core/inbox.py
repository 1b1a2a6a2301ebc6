"""Find inbox files and decide, per file, whether it is new, a correction, a duplicate or known.

Identity (DESIGN.md): a source is its path inside the inbox (starting with the organisation
folder). The same content again under any path is a duplicate and posts nothing. New content at
a path that was posted before is a correction. Files at other paths are additional data.
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pandas as pd

IGNORED_PREFIXES = (".", "~$")  # hidden files, editor lock files


SCAN_COLUMNS = ["organisation", "source_file", "path", "size_bytes", "mtime_ns"]
REFUSED_COLUMNS = ["organisation", "source_file", "reason"]


def printable_name(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 shown as \\xNN (the name is otherwise kept)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:  # os.fsdecode keeps undecodable bytes as lone surrogates
        return False


def scan(inbox: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every regular file under the inbox, and every entry refused before anything is read.

    Returns (files, refused). Files: organisation folder, relative path, size, mtime. Refused:
    links (never followed, so nothing outside the inbox is read) and names that are not UTF-8,
    each with the reason a club secretary can act on. Links and folders are not descended into.
    """
    rows, refused = [], []
    if inbox.exists():
        _walk(str(inbox), (), rows, refused)
    files = pd.DataFrame(rows, columns=SCAN_COLUMNS).sort_values("source_file", ignore_index=True)
    return files, pd.DataFrame(refused, columns=REFUSED_COLUMNS)


def _walk(folder: str, rel_folder: tuple[str, ...], rows: list, refused: list) -> None:
    """os.walk's top-down order with one directory listing per folder and one lstat per file
    (DirEntry): a federation's inbox holds hundreds of thousands of files, scanned every night."""
    try:
        entries = list(os.scandir(folder))
    except OSError:  # as os.walk: an unreadable folder is skipped
        return
    dirs, names = [], []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else names).append(entry)
    dirs.sort(key=lambda e: e.name)
    names.sort(key=lambda e: e.name)
    for entry in dirs:
        if entry.is_symlink() and not entry.name.startswith(IGNORED_PREFIXES):
            refused.append(_refusal(Path(*rel_folder, entry.name), "a link to a folder, not a folder: copy the folder itself "
                                    "into the inbox (links are not followed); nothing in it was read"))
    folder_utf8 = all(_is_utf8(part) for part in rel_folder)
    organisation = rel_folder[0] if rel_folder else None
    prefix = "/".join(rel_folder) + "/" if rel_folder else ""
    for entry in names:
        name = entry.name
        if name.startswith(IGNORED_PREFIXES):
            continue
        if not (folder_utf8 and _is_utf8(name)):
            refused.append(_refusal(Path(*rel_folder, name), "the file or folder name is not valid UTF-8 text: rename it "
                                    "(letters, digits, - and _ are safe); the file was not read"))
            continue
        if entry.is_symlink():
            refused.append(_refusal(Path(*rel_folder, name), "a link, not a file: copy the file itself into the inbox "
                                    "(links are not followed); the link was not read"))
            continue
        status = entry.stat(follow_symlinks=False)
        if not stat_regular(status):
            refused.append(_refusal(Path(*rel_folder, name), "not a regular file (a device, pipe or socket): put the result "
                                    "file itself into the inbox"))
            continue
        rows.append((organisation if organisation is not None else "", prefix + name, entry.path,
                     status.st_size, status.st_mtime_ns))
    for entry in dirs:  # hidden folders are skipped; links to folders are not descended into
        if not entry.name.startswith(IGNORED_PREFIXES) and not entry.is_symlink():
            _walk(entry.path, rel_folder + (entry.name,), rows, refused)


def stat_regular(status: os.stat_result) -> bool:
    return stat.S_ISREG(status.st_mode)


def _refusal(rel: Path, reason: str) -> dict:
    parts = [printable_name(p) for p in rel.parts]
    return {"organisation": parts[0] if len(parts) > 1 else "", "source_file": "/".join(parts), "reason": reason}


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def latest_versions(sources: pd.DataFrame) -> pd.DataFrame:
    """The most recent record of each path (run ids sort by time)."""
    return sources.sort_values(["run_id", "source_file"]).drop_duplicates(["organisation", "source_file"], keep="last")


def with_hashes(files: pd.DataFrame, latest: pd.DataFrame) -> pd.DataFrame:
    """Add sha256; a file whose size and mtime match its last record is not read again."""
    known = latest[["source_file", "size_bytes", "mtime_ns", "sha256"]].rename(
        columns={"size_bytes": "known_size", "mtime_ns": "known_mtime", "sha256": "known_sha"}
    )
    merged = files.merge(known, on="source_file", how="left")
    unchanged = (merged["known_size"] == merged["size_bytes"]) & (merged["known_mtime"] == merged["mtime_ns"])
    unchanged = unchanged.fillna(False).astype(bool)
    hashes = merged["known_sha"].where(unchanged)
    to_hash = merged.loc[~unchanged, "path"]
    hashes.loc[to_hash.index] = [sha256_of(p) for p in to_hash]  # I/O per file, not per record
    return files.assign(sha256=hashes.astype("string").to_numpy())


def classify(files: pd.DataFrame, latest: pd.DataFrame) -> pd.DataFrame:
    """Label each scanned file: unchanged | duplicate | correction | new.

    `duplicate_of` names the posted path with the same content; `supersedes_sha256` the content
    a correction replaces. A duplicate waits while its content stands at another path; when that
    path is corrected tonight (or its new content is itself a duplicate), the waiting copy (the
    first by path) is read again and posts ("new"), as a fresh run on this inbox would.
    """
    previous = latest[["organisation", "source_file", "sha256", "status"]].rename(
        columns={"sha256": "previous_sha", "status": "previous_status"}
    )
    files = files.astype({"organisation": "string", "source_file": "string", "sha256": "string"})
    f = files.merge(previous.astype("string"), on=["organisation", "source_file"], how="left")

    def flag(mask: pd.Series) -> pd.Series:  # NA (no previous version) counts as False
        return mask.fillna(False).astype(bool)

    unchanged = flag(f["previous_sha"] == f["sha256"])
    # Content that keeps standing tonight: posted records (not duplicates) of paths that get no
    # new record tonight (unchanged, or no longer in the inbox: a removed file stays posted).
    rerecorded = f.loc[~unchanged, ["organisation", "source_file"]].astype("string").assign(_again=True)
    kept = latest.loc[latest["status"] != "duplicate", ["organisation", "sha256", "source_file"]].astype("string")
    kept = kept.merge(rerecorded, on=["organisation", "source_file"], how="left")
    standing = kept[kept["_again"].isna()].drop(columns="_again").sort_values("source_file").rename(
        columns={"source_file": "standing_path"}
    )
    f = f.merge(standing.drop_duplicates(["organisation", "sha256"]), on=["organisation", "sha256"], how="left")
    # A waiting duplicate whose content stands nowhere any more competes with tonight's files.
    orphan = unchanged & flag(f["previous_status"] == "duplicate") & f["standing_path"].isna()
    candidate = ~unchanged | orphan
    # Two new files with the same content in one night: the first path (sorted) stands.
    first_new = f[candidate].sort_values("source_file").drop_duplicates(["organisation", "sha256"])[
        ["organisation", "sha256", "source_file"]
    ]
    f = f.merge(first_new.rename(columns={"source_file": "first_path"}), on=["organisation", "sha256"], how="left")
    promoted = orphan & flag(f["first_path"] == f["source_file"])
    unchanged = unchanged & ~promoted  # other orphans keep waiting, unchanged

    dup_of_posted = ~unchanged & flag(f["standing_path"].notna() & (f["standing_path"] != f["source_file"]))
    dup_in_batch = ~unchanged & ~dup_of_posted & flag(f["first_path"] != f["source_file"])
    correction = ~unchanged & ~promoted & ~dup_of_posted & ~dup_in_batch & flag(f["previous_sha"].notna())
    status = pd.Series("new", index=f.index, dtype="string")
    status = status.mask(correction, "correction").mask(dup_in_batch | dup_of_posted, "duplicate").mask(unchanged, "unchanged")
    duplicate_of = f["standing_path"].where(dup_of_posted, f["first_path"].where(dup_in_batch))
    return f.assign(
        action=status,
        duplicate_of=duplicate_of.astype("string"),
        # New content at a posted path replaces what stood there, even when that new content is
        # a duplicate of another file: the path's earlier lines are reversed either way.
        supersedes_sha256=f["previous_sha"].where(
            flag(status.isin(["correction", "duplicate"]) & f["previous_sha"].notna() & (f["previous_status"] != "duplicate"))
        ).astype("string"),
    )[list(files.columns) + ["action", "duplicate_of", "supersedes_sha256"]]


# --------------------------------------------------------------------------- partner files
# A rule system that pairs files (JCBL and the Swedish system: an event file and its result list;
# a Swedish series file and its matches) reads a file's partner from the inbox beside the batch.


@dataclass
class InboxFile:
    """A file a rule system reads: one of tonight's batch (`in_batch`), or a partner read from the
    inbox (posted on an earlier night, or arriving tonight at another organisation's turn)."""

    source_file: str
    path: Path | None
    sha256: str
    data: bytes
    in_batch: bool


def inbox_root(ctx, source) -> Path:
    """The inbox a run's source file lies in (the organisation folders' parent). `pointledger check`
    has no inbox: the partner is then looked up beside the file itself."""
    if ctx.inbox is not None:
        return Path(ctx.inbox)
    return source.path.parents[len(PurePosixPath(source.source_file).parts) - 1]


def on_disk(root: Path, source_file: str) -> Path | None:
    """The regular file at `source_file` under the inbox, its name matched case-insensitively (a
    secretary's `.Standings.csv`). Links are not followed, neither the file nor a folder on its way,
    as the scan follows none (it quarantines them): a partner is read only from inside the inbox."""
    target = root / source_file
    folder = target.parent
    for part in [folder, *folder.parents]:
        if part == root or root not in part.parents:
            break
        if part.is_symlink():
            return None
    if target.is_file() and not target.is_symlink():
        return target
    if not folder.is_dir():
        return None
    for candidate in folder.iterdir():
        if candidate.name.lower() == target.name.lower() and candidate.is_file() and not candidate.is_symlink():
            return candidate
    return None


def read_partner(root: Path, source_file: str) -> InboxFile | None:
    """The partner file `source_file` read from the inbox at `root` (None when there is none)."""
    path = on_disk(root, source_file)
    if path is None:
        return None
    data = path.read_bytes()
    return InboxFile(path.relative_to(root).as_posix(), path, hashlib.sha256(data).hexdigest(), data, in_batch=False)
