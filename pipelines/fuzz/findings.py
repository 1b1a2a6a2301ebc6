"""The campaign's summary as one Markdown file per rule system (for the people fixing parsers)."""
from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _where(path: str) -> str:
    """Saved inputs are named absolutely, so readers in other worktrees can open them."""
    return str(PROJECT_ROOT / path) if path and not Path(path).is_absolute() else path


def table(summary: dict) -> str:
    rows = ["| parser | files | crashes | signatures | seconds |", "|---|---:|---:|---:|---:|"]
    for name, t in summary["targets"].items():
        rows.append(f"| {name} | {t['files']} | {t['crashes']} | {len(t['signatures'])} | {t['seconds']} |")
    return "\n".join(rows)


def system_markdown(summary: dict, system: str) -> str:
    mine = {n: t for n, t in summary["targets"].items() if t["system"] == system}
    out = [
        f"# Fuzz campaign findings: {system}",
        "",
        f"Campaign run on commit `{summary['commit']}` of branch h/fuzz, whose parser and core code is main's "
        f"(`{summary.get('parsers_commit', '?')}`, before the parser fixes of the other branches; h/fuzz only "
        f"adds pipelines/fuzz/, its tests and make targets), seed {summary['seed']}, "
        f"{summary['files_per_target']} generated files per parser, each file alone through "
        f"`get_system('{system}').process(...)` as `pointledger check` does it. "
        "Reproduce one file: `.venv/bin/python -m pipelines.fuzz campaign --only <parser> --start <index> --files 1 --jobs 1` "
        "or pass the saved input to `pointledger check`.",
        "",
        "A crash is an exception escaping `process`, a time-out, output failing its pandera model "
        "(as the nightly run validates it), or accounting that is off (a file with no record posted and no "
        "quarantine row, or fewer records than the unmutated file with no quarantine row after a mutation that deletes no "
        "line: SilentLoss). 'silently empty' files are caught by the core's new safety net after the lead's merge, "
        "but the parser should still say what it found instead (issue 14: every physical line accounted for).",
        "",
        table({"targets": mine}),
        "",
    ]
    for name, t in mine.items():
        out.append(f"## {name}: {t['files']} files, {t['crashes']} crashes, {t['seconds']} s")
        out.append("")
        seeds = t["seed_files"]
        out.append(f"Seed files ({len(seeds)}): {', '.join(seeds[:6])}" + (", ..." if len(seeds) > 6 else ""))
        out.append("")
        if not t["signatures"]:
            out.append("No crash.")
            out.append("")
        for signature, s in t["signatures"].items():
            smallest = s["smallest"]
            out.append(f"### {signature}")
            out.append("")
            out.append(f"- {s['count']} of {t['files']} files; mutations involved: "
                       + ", ".join(f"{k} ({v})" for k, v in list(s["mutations"].items())[:8]))
            out.append(f"- smallest input: file {smallest['index']} from `{smallest['seed_file']}` "
                       f"({', '.join(smallest['mutations'])}), {smallest['size']} bytes"
                       + (f", saved as `{_where(smallest['saved_as'])}`" if smallest.get("saved_as") else ""))
            minimal = s.get("minimal")
            if minimal:
                out.append(f"- minimal reproducing input ({minimal['size']} bytes, same signature"
                           + (f", saved as `{_where(minimal['saved_as'])}`" if minimal.get("saved_as") else "") + "):")
                out.append("")
                out.append("```")
                out.append(minimal["text"][:1500].replace("```", "'''"))
                out.append("```")
            lines = short_traceback(smallest["detail"])
            out.append("")
            out.append("```")
            out.extend(line[:400] for line in lines)
            out.append("```")
            out.append("")
    return "\n".join(out) + "\n"


def short_traceback(detail: str, keep: int = 40) -> list[str]:
    """The last exception of a chained traceback, with the project's frames only (and the message)."""
    text = detail.strip()
    for marker in ("\nThe above exception was the direct cause of the following exception:\n",
                   "\nDuring handling of the above exception, another exception occurred:\n"):
        text = text.split(marker)[-1].strip()
    lines = text.splitlines()
    if not lines or not lines[0].startswith("Traceback"):
        return [line[:400] for line in lines[:keep]]
    out, i = [lines[0]], 1
    while i < len(lines):
        line = lines[i]
        if line.startswith("  File "):
            block = [line]
            i += 1
            while i < len(lines) and lines[i].startswith("    "):
                block.append(lines[i])
                i += 1
            if "/pipelines/" in line and "/pipelines/fuzz/" not in line:
                out.extend(b for b in block if b.strip().strip("~^") != "")
            elif out[-1] != "  ...":
                out.append("  ...")
        else:
            out.append(line)
            i += 1
    if len(out) > keep:
        out = out[:5] + ["  ..."] + out[-(keep - 6):]
    return [line[:400] for line in out]


def write_findings(summary: dict, folder: Path) -> list[Path]:
    written = []
    for system in sorted({t["system"] for t in summary["targets"].values()}):
        path = Path(folder) / f"fuzz-{system}.md"
        path.write_text(system_markdown(summary, system), encoding="utf-8")
        written.append(path)
    return written


def merge(summaries: list[dict]) -> dict:
    """Campaigns over different file ranges of the same seed, as one summary."""
    from collections import Counter

    out = {k: v for k, v in summaries[-1].items() if k != "targets"}
    out["files_per_target"] = " + ".join(f"{s['files_per_target']} from file {s.get('first_file', 0)}" for s in summaries)
    out["campaigns"] = [{"first_file": s.get("first_file", 0), "wall_seconds": s["wall_seconds"],
                         "files": sum(t["files"] for t in s["targets"].values())} for s in summaries]
    targets: dict[str, dict] = {}
    for s in summaries:
        for name, t in s["targets"].items():
            into = targets.setdefault(name, {**t, "files": 0, "crashes": 0, "seconds": 0.0, "signatures": {}})
            into["files"] += t["files"]
            into["crashes"] += t["crashes"]
            into["seconds"] = round(into["seconds"] + t["seconds"], 1)
            for signature, sig in t["signatures"].items():
                have = into["signatures"].get(signature)
                if have is None:
                    into["signatures"][signature] = {**sig, "mutations": dict(sig["mutations"])}
                    continue
                have["count"] += sig["count"]
                have["mutations"] = dict((Counter(have["mutations"]) + Counter(sig["mutations"])).most_common())
                if sig["smallest"]["size"] < have["smallest"]["size"]:
                    have["smallest"] = sig["smallest"]
                if sig.get("minimal") and (not have.get("minimal") or sig["minimal"]["size"] < have["minimal"]["size"]):
                    have["minimal"] = sig["minimal"]
    for t in targets.values():
        t["signatures"] = dict(sorted(t["signatures"].items(), key=lambda kv: -kv[1]["count"]))
    out["targets"] = targets
    return out
