"""`python -m pipelines.fuzz campaign|soak ...` (what `make fuzz` and `make soak` run)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _campaign(args) -> int:
    from pipelines.fuzz.campaign import run_campaign
    from pipelines.fuzz.findings import write_findings

    summary = run_campaign(args.files, seed=args.seed, jobs=args.jobs, out_dir=Path(args.out), only=args.only or None,
                           timeout=args.timeout, chunk=args.chunk, minimise_budget=args.minimise, minutes=args.minutes,
                           start=args.start, batch=args.batch)
    print(f"fuzz campaign: seed {summary['seed']}, {summary['files_per_target']} files per parser, "
          f"{summary['jobs']} process(es), {summary['wall_seconds']} s wall, commit {summary['commit'][:10]}")
    print(f"{'parser':<22}{'files':>7}{'crashes':>9}{'seconds':>9}  per call")
    for name, t in summary["targets"].items():
        per_call = summary["files_per_process_call"] if t["batched"] else 1
        print(f"{name:<22}{t['files']:>7}{t['crashes']:>9}{t['seconds']:>9}  {per_call}")
        for signature, s in t["signatures"].items():
            print(f"    {s['count']:>5} × {signature}")
    print(f"crashing inputs and summary.json in {args.out}/")
    if args.findings:
        for path in write_findings(summary, Path(args.findings)):
            print(f"wrote {path}")
    crashes = sum(t["crashes"] for t in summary["targets"].values())
    return 1 if crashes and args.fail_on_crash else 0


def _soak(args) -> int:
    from pipelines.fuzz.soak import run_soak

    result = run_soak(kills=args.kills, seed=args.seed, copies=args.copies, work=Path(args.out), log=print,
                      units_per_org=args.units_per_org)
    (Path(args.out) / "summary.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "differences_detail"}, indent=2))
    return 0 if result["differences"] == 0 and result["ok"] else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.fuzz")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("campaign", help="mutation campaign through every parser's process")
    c.add_argument("--files", type=int, default=10000, help="generated files per parser")
    c.add_argument("--seed", type=int, default=14)
    c.add_argument("--start", type=int, default=0, help="index of the first generated file (go on after a campaign)")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--out", default="bench-out/fuzz")
    c.add_argument("--only", action="append", help="a parser (mahjong-text ...) or a system (mahjong ...); repeatable")
    c.add_argument("--timeout", type=float, default=30.0, help="seconds per file before it counts as a crash")
    c.add_argument("--minutes", type=float, default=0, help="time budget: stop starting files after this many minutes (0: none)")
    c.add_argument("--chunk", type=int, default=25, help="files per work unit")
    c.add_argument("--batch", type=int, default=1,
                   help="generated files per process call (a batch with a problem is re-run file by file)")
    c.add_argument("--minimise", type=int, default=0, help="shrink each crash signature's smallest input (process calls each)")
    c.add_argument("--findings", default=None, help="also write fuzz-<system>.md files into this folder")
    c.add_argument("--fail-on-crash", action="store_true", help="exit 1 when any file crashed")
    c.set_defaults(func=_campaign)
    s = sub.add_parser("soak", help="kill runs at random moments and compare with a clean run")
    s.add_argument("--kills", type=int, default=30)
    s.add_argument("--seed", type=int, default=14)
    s.add_argument("--copies", type=int, default=2, help="copies of each sample organisation's files (as more days)")
    s.add_argument("--units-per-org", type=int, default=None, help="only the first N files (JCBL pairs) per organisation")
    s.add_argument("--out", default="bench-out/soak")
    s.set_defaults(func=_soak)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
