"""`pointledger`: run (the nightly batch), check (validate files), explain (a player's awards),
recompute (re-derive posted awards after a rule change)."""
from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape  # a message names [options] and [[seasons]] tables: text, not markup
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipelines.core import run as nightly
from pipelines.core.config import ENV_VAR, FILE_NAME, TEMPLATE, OfficeConfig, load_config, merged
from pipelines.core.settings import DATA_DIR, DEFAULT_MAX_FILE_MB, SettingsError, StatePaths, load_organisations
from pipelines.core.system import available_systems

console = Console(stderr=True, soft_wrap=True)  # error lines stay whole in logs
out = Console(soft_wrap=True)


class _RichProgress:
    """Stage names and a file bar on stderr (hidden when stderr is not a terminal)."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task = progress.add_task("starting", total=None)

    def stage(self, name: str) -> None:
        self.progress.update(self.task, description=name)

    def files(self, total: int) -> None:
        self.progress.update(self.task, total=max(total, 1), completed=0 if total else 1)

    def advance(self, n: int = 1) -> None:
        self.progress.advance(self.task, n)


def _parse_date(ctx, param, value):
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"expected a date YYYY-MM-DD, found {value!r}")


EXIT_USAGE = 2  # click's own code for a wrong flag or argument; also "no inbox given"
EXIT_CONFIG = 5  # a configuration or settings file is wrong, or names an unknown organisation
EXIT_NOT_FOUND = 6  # explain: no award line for that player


@click.group()
@click.version_option(package_name="pointledger")
def main() -> None:
    """Ranking points for game federations and clubs, from their result files."""


def _office(config_file: Path | None, **flags) -> OfficeConfig:
    """pointledger.toml (--config, $POINTLEDGER_CONFIG or ./pointledger.toml) with the flags over it."""
    try:
        config, _ = load_config(config_file)
    except SettingsError as error:
        console.print(f"[red]configuration error, nothing was done:[/red]\n{escape(str(error))}", markup=True, highlight=False)
        sys.exit(EXIT_CONFIG)
    return merged(config, **flags)


def _config_option(f):
    return click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help=f"Configuration file (default: ${ENV_VAR}, else ./pointledger.toml).")(f)


def _data_option(f):
    return click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Rule data and organisation settings (default: config, else the bundled example data).")(f)


def _state_option(f):
    return click.option("--state", "state_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Run state: lake, ledger, warehouse, publications (default: config, else ./var).")(f)


def _state_outside_the_inbox(office: OfficeConfig) -> None:
    """A state folder inside the inbox would have the run read its own lake, warehouse and pages
    as clubs' files (quarantined as an unknown organisation, more every night): refused first."""
    state, inbox = Path(office.state).resolve(), Path(office.inbox).resolve()
    if state == inbox or inbox in state.parents:
        console.print(f"[red]configuration error, nothing was done:[/red] the state folder {escape(str(state))} is inside "
                      f"the inbox {escape(str(inbox))}: the run would read its own files as results; put the state "
                      f"folder beside the inbox (for instance {escape(str(inbox.parent / 'var'))})", highlight=False)
        sys.exit(EXIT_CONFIG)


def _locked_run(office: OfficeConfig, as_of: date | None, what: str, **kw) -> nightly.RunResult:
    """The nightly run (or a recompute) with a progress bar on stderr; any failure is one clear
    line and its exit code (the state is intact: nothing was posted)."""
    try:
        with Progress(SpinnerColumn(), TextColumn("{task.description:<9}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True) as progress:
            return nightly.run(office.inbox, office.state, as_of, office.data_dir or DATA_DIR,
                               progress=_RichProgress(progress), enabled=office.organisations,
                               max_file_mb=office.max_file_mb or DEFAULT_MAX_FILE_MB,
                               publication_base_url=office.publication_base_url, **kw)
    except nightly.RunLocked as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        sys.exit(nightly.EXIT_LOCKED)
    except SettingsError as error:
        console.print(f"[red]settings error, nothing was posted:[/red] {escape(str(error))}", highlight=False)
        sys.exit(EXIT_CONFIG)
    except nightly.OutputsFailed as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        sys.exit(nightly.EXIT_FAILED)
    except KeyboardInterrupt:
        # before the commit (one after it is an OutputsFailed): the state is as it was
        console.print(f"[red]{what} interrupted, nothing was posted: the next run starts from the same state[/red]")
        sys.exit(nightly.EXIT_FAILED)
    except Exception as error:  # noqa: BLE001 - the office needs one clear line, and the state is intact
        console.print(f"[red]{what} failed, nothing was posted ({type(error).__name__}):[/red] {escape(str(error))}")
        sys.exit(nightly.EXIT_FAILED)


@main.command()
@click.option("--inbox", "inbox_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Inbox: one folder per organisation (default: the config's inbox; required without one).")
@_state_option
@click.option("--as-of", callback=_parse_date, default=None, help="Run date (YYYY-MM-DD); default today.")
@_data_option
@_config_option
def run(inbox_dir: Path | None, state_dir: Path | None, as_of: date | None, data_dir: Path | None,
        config_file: Path | None) -> None:
    """The nightly batch: post every new file of the inbox, refresh ledgers, rankings, publications.

    Exit 0: everything posted. 3: finished, some input quarantined. 4: another run holds the
    state folder. 1: failed; the state is as before the run. 2: usage (no inbox given, a wrong
    flag). 5: a configuration or settings file is wrong.
    """
    office = _office(config_file, inbox=inbox_dir, state=state_dir, data_dir=data_dir)
    if office.inbox is None:
        console.print("[red]no inbox: pass --inbox DIR, or write a configuration with `pointledger init DIR` "
                      "(the bundled samples run with `make run`)[/red]")
        sys.exit(EXIT_USAGE)
    if not office.inbox.is_dir():
        console.print(f"[red]inbox {office.inbox} does not exist[/red]")
        sys.exit(EXIT_USAGE)
    _state_outside_the_inbox(office)
    result = _locked_run(office, as_of, "run")
    _print_summary(result, StatePaths(office.state))
    sys.exit(result.exit_code)


@main.command()
@click.option("--inbox", "inbox_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Inbox the posted files are read from again (default: the config's inbox).")
@_state_option
@click.option("--organisation", default=None, help="Only this organisation.")
@click.option("--system", default=None, type=click.Choice(available_systems(), case_sensitive=False),
              help="Only organisations of this rule system.")
@click.option("--from", "date_from", callback=_parse_date, default=None, help="First event date to re-derive (YYYY-MM-DD).")
@click.option("--to", "date_to", callback=_parse_date, default=None, help="Last event date to re-derive (YYYY-MM-DD).")
@click.option("--dry-run", is_flag=True, help="Show the difference per player; post nothing.")
@click.option("--reason", default="", help="Why (kept in the recomputations table and each line's basis).")
@click.option("--as-of", callback=_parse_date, default=None, help="Posting date of the lines (YYYY-MM-DD); default today.")
@_data_option
@_config_option
def recompute(inbox_dir: Path | None, state_dir: Path | None, organisation: str | None, system: str | None,
              date_from: date | None, date_to: date | None, dry_run: bool, reason: str, as_of: date | None,
              data_dir: Path | None, config_file: Path | None) -> None:
    """Re-derive posted awards under the rule data now in data/ and post only the difference.

    Each changed line is reversed and its new line posted, both naming the recomputation;
    unchanged lines are not touched, so a second recompute posts nothing. Tonight's new files
    are left for `run`. Exit 0: done (or, with --dry-run, no difference). 3: --dry-run found a
    difference (listed). 4: a run holds the state folder. 1: failed, nothing posted. 2: usage.
    5: configuration.
    """
    office = _office(config_file, inbox=inbox_dir, state=state_dir, data_dir=data_dir)
    if office.inbox is None or not office.inbox.is_dir():
        console.print("[red]no inbox: pass --inbox DIR (the folder the posted files are in) or a configuration[/red]")
        sys.exit(EXIT_USAGE)
    _state_outside_the_inbox(office)
    if date_from and date_to and date_from > date_to:
        console.print(f"[red]--from {date_from} is after --to {date_to}[/red]")
        sys.exit(EXIT_USAGE)
    request = nightly.Recompute(organisation=organisation, system=system, date_from=date_from, date_to=date_to,
                                dry_run=dry_run, reason=reason)
    try:
        organisations = load_organisations(office.data_dir or DATA_DIR, office.organisations)
    except SettingsError as error:
        console.print(f"[red]settings error, nothing was posted:[/red] {escape(str(error))}", highlight=False)
        sys.exit(EXIT_CONFIG)
    if organisation and organisation not in organisations.index:
        console.print(f"[red]unknown organisation {organisation!r}; known: {', '.join(organisations.index)}[/red]",
                      highlight=False)
        sys.exit(EXIT_CONFIG)
    if organisation and system and organisations.loc[organisation, "system"] != system:
        # nothing would be re-derived, and 'no difference' would read as 'the rule change has none'
        console.print(f"[red]--organisation {organisation} uses the rule system {organisations.loc[organisation, 'system']!r}, "
                      f"not {system!r}: give one of the two[/red]", highlight=False)
        sys.exit(EXIT_USAGE)
    result = _locked_run(office, as_of, "recompute", recompute=request)
    _print_difference(result)
    sys.exit(result.exit_code if dry_run else nightly.EXIT_OK)


def _print_difference(result: nightly.RunResult) -> None:
    info = result.report.get("recomputation", {})
    rows = info.get("difference", [])
    verb = "would post" if result.report.get("dry_run") else "posted"
    out.print(f"recomputation {info.get('recomputation_id')}: {info.get('files', 0)} file version(s) re-derived, "
              f"{len(rows)} line(s) changed; {verb} {result.report['award_lines']['reversals']} reversal(s) and "
              f"{result.report['award_lines']['posted']} new line(s)", highlight=False)
    left_out = info.get("not_rederived", {})
    for path in left_out.get("removed", []):
        out.print(f"[yellow]not re-derived: {escape(path)} is no longer in the inbox; its lines stand as posted under the "
                  "earlier rule data (put the file back and recompute again to re-derive them)[/yellow]", highlight=False)
    for path in left_out.get("changed", []):
        out.print(f"[yellow]not re-derived: {escape(path)} has changed since it was posted; the next run posts the new "
                  "version under the rule data now in data/[/yellow]", highlight=False)
    if not rows:
        return
    columns = ("organisation", "player", "event", "denom.", "before", "after", "delta", "basis after (before)")
    cells = [[r["organisation"], r["player_id"], r["event_id"], r["denomination"], r["before"], r["after"], r["delta"],
              f"{r['basis_after'] or '(no line)'} ({r['basis_before'] or 'no line'})"] for r in rows]
    if not out.is_terminal:
        # into a file or a mail from cron: one tab-separated line per change, whole (a table would
        # be folded to 80 columns, a basis to a few characters a line)
        for line in [columns, *cells]:
            click.echo("\t".join(str(c) for c in line))
        return
    table = Table(show_header=True)
    for column in columns:
        table.add_column(column, overflow="fold")
    for line in cells:
        table.add_row(*line)
    out.print(table)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--with-samples", is_flag=True, help="Also copy the bundled sample inbox into DIRECTORY/inbox.")
def init(directory: Path, with_samples: bool) -> None:
    """Write a commented pointledger.toml and the folder layout (inbox, var, data) into DIRECTORY.

    The data folder is a copy of the bundled example rule data and organisations, for the office
    to edit. Exit 0: written. 5: DIRECTORY already holds a pointledger.toml (nothing changed).
    """
    target = directory / FILE_NAME
    if target.exists():
        console.print(f"[red]{target} already exists; nothing was changed[/red]")
        sys.exit(EXIT_CONFIG)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "var").mkdir(exist_ok=True)
    if with_samples and not (directory / "inbox").exists():
        shutil.copytree(DATA_DIR / "samples" / "inbox", directory / "inbox")
    (directory / "inbox").mkdir(exist_ok=True)
    if not (directory / "data").exists():
        shutil.copytree(DATA_DIR, directory / "data", ignore=shutil.ignore_patterns("samples", "__pycache__"))
    target.write_text(TEMPLATE.format(config_path=target.resolve(), log_path=(directory / "var" / "cron.log").resolve()),
                      encoding="utf-8")
    out.print(f"wrote {target} and the folders inbox/, var/, data/ beside it. Next: add your organisations to "
              f"{directory / 'data' / 'organisations'}, their files to {directory / 'inbox'}, then "
              f"`pointledger run --config {target}`", highlight=False)


def _print_summary(result: nightly.RunResult, paths: StatePaths) -> None:
    report = result.report
    files, records, lines = report["files"], report["records"], report["award_lines"]
    table = Table(title=f"pointledger run {result.run_id} (as of {report['as_of']})", show_header=False)
    table.add_row("files seen", str(files["seen"]))
    table.add_row("  new / corrections", f"{files['new']} / {files['corrections']}")
    table.add_row("  already posted (skipped)", str(files["already_posted"]))
    table.add_row("  duplicates (skipped)", str(files["duplicates"]))
    table.add_row("  waiting: unknown organisation", str(files["waiting_unknown_organisation"]))
    table.add_row("  refused unread (links, names)", str(files.get("refused_unread", 0)))
    table.add_row("records posted", str(records["posted"]))
    table.add_row("records quarantined", str(records["quarantined"]))
    table.add_row("award lines posted", str(lines["posted"]))
    table.add_row("reversal lines posted", str(lines["reversals"]))
    table.add_row("publications written", str(len(report["publications"])))
    table.add_row("seconds", f"{sum(report['durations_seconds'].values()):.2f}")
    out.print(table)
    report_path = paths.runs / (result.run_id + ".json")
    if records["quarantined"]:
        out.print(f"[yellow]{records['quarantined']} record(s) quarantined[/yellow]: see the `quarantine` view in "
                  f"{paths.warehouse} or `pointledger check FILE`; run report {report_path}")
    if report.get("internal_errors"):
        names = sorted({f for incident in report["internal_errors"] for f in incident["source_files"]})
        out.print(f"[red]{len(names)} file(s) hit an internal error and were quarantined[/red] (the other files "
                  f"posted): {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}; tracebacks in {report_path}")
    for corrected in report.get("corrections_reversed_whole", []):
        out.print(f"[yellow]{escape(corrected['source_file'])}: its new version posted nothing, and the "
                  f"{corrected['reversed_lines']} line(s) of the version before are reversed[/yellow] (a file sent empty "
                  "or cut short? send it again whole)", highlight=False)
    for earlier in report.get("earlier_runs_unreported", []):
        out.print(f"[yellow]run {earlier['run_id']} (as of {earlier['as_of']}) stopped before its report[/yellow]: "
                  f"{earlier['quarantined']} record(s) it quarantined were not signalled then; report written now")
    for note in report.get("warehouse_notes", []):
        out.print(f"[yellow]{note}[/yellow]")
    for warning in report.get("rule_data_changed", []):
        out.print(f"[yellow]{warning['message']}[/yellow]", highlight=False)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--organisation", default=None, help="Organisation id (default: the file's folder name).")
@click.option("--as-of", callback=_parse_date, default=None, help="Run date for the future-date check; default today.")
@click.option("--state", "state_dir", default=None, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A run's state folder: report what run would do beside what it has posted (read only).")
@_data_option
@_config_option
def check(files: tuple[Path, ...], organisation: str | None, as_of: date | None, state_dir: Path | None,
          data_dir: Path | None, config_file: Path | None) -> None:
    """Validate raw files and print every problem. Posts nothing.

    Exit 0: no problem. 3: problems found (listed). 2: usage (a wrong flag, a missing file).
    5: the organisation is unknown, or a configuration or settings file is wrong.
    """
    from pipelines.core.check import check_files

    office = _office(config_file, data_dir=data_dir)
    try:
        organisations = load_organisations(office.data_dir or DATA_DIR, office.organisations)
        with tempfile.TemporaryDirectory() as scratch:
            report = check_files(list(files), organisations, organisation, as_of or date.today(),
                                 office.data_dir or DATA_DIR, Path(scratch), state=state_dir)
    except (SettingsError, KeyError) as error:
        console.print(f"[red]{escape(str(error.args[0] if isinstance(error, KeyError) else error))}[/red]", highlight=False)
        sys.exit(EXIT_CONFIG)
    problems = 0
    for item in report:
        header = f"{item['file']}: {item['records_ok']} record(s) OK, {len(item['problems'])} problem(s)"
        out.print(header if not item["problems"] else f"[yellow]{header}[/yellow]", highlight=False)
        for note in item.get("notes", []):
            out.print(f"  {note}", highlight=False, markup=False)
        for problem in item["problems"]:
            out.print(f"  {problem['location']}: {problem['reason']}", highlight=False, markup=False)
            if problem.get("record"):
                out.print(f"      found: {problem['record']}", highlight=False, markup=False)
        for incident in item.get("internal_errors", []):
            out.print(f"  internal error: {incident['error']}", highlight=False, markup=False)
        problems += len(item["problems"])
    sys.exit(3 if problems else 0)


@main.command()
@click.argument("player")
@click.option("--event", "event_id", default=None, help="Only this event's lines.")
@_state_option
@_data_option
@_config_option
def explain(player: str, event_id: str | None, state_dir: Path | None, data_dir: Path | None,
            config_file: Path | None) -> None:
    """Each award line of a player, with its derivation, and the ranking arithmetic.

    PLAYER may be written as in the result files (full-width letters, extra spaces, an alias).
    Exit 0: lines shown. 6: no award line for that player. 1: no warehouse yet. 5: configuration.
    """
    from pipelines.core.explain import explain_player

    office = _office(config_file, state=state_dir, data_dir=data_dir)
    paths = StatePaths(office.state)
    if not paths.warehouse.exists():
        console.print(f"[red]no warehouse at {paths.warehouse}: run `pointledger run` first[/red]")
        sys.exit(1)
    problems: list[str] = []
    lines = explain_player(paths.warehouse, player, event_id, office.data_dir or DATA_DIR, problems)
    for problem in problems:
        # on stderr, so that the lines themselves can still be piped
        console.print(f"warning: {problem}", style="yellow", highlight=False, markup=False)
    if not lines:
        console.print(f"[yellow]no award lines for player {player!r}{' in event ' + event_id if event_id else ''}[/yellow]")
        sys.exit(EXIT_NOT_FOUND)
    for line in lines:
        click.echo(line)



@main.command()
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for index.html and dictionary.md (default: <state>/dictionary).")
@_state_option
@_config_option
def docs(out_dir: Path | None, state_dir: Path | None, config_file: Path | None) -> None:
    """The analysts' data dictionary: every view and table of the warehouse, its grain, columns,
    types and an example query (index.html, searchable; dictionary.md).

    Exit 0: written. 1: no warehouse yet. 5: configuration.
    """
    from pipelines.core.dictionary import write_docs

    office = _office(config_file, state=state_dir)
    paths = StatePaths(office.state)
    if not paths.warehouse.exists():
        console.print(f"[red]no warehouse at {paths.warehouse}: run `pointledger run` first[/red]")
        sys.exit(1)
    for path in write_docs(paths.warehouse, out_dir or Path(office.state) / "dictionary"):
        click.echo(f"wrote {path}")


if __name__ == "__main__":
    main()
