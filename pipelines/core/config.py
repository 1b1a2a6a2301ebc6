"""`pointledger.toml`: where an office keeps its inbox, state and rule data, read once per command.

Found by `--config FILE`, else the environment variable `POINTLEDGER_CONFIG`, else
`./pointledger.toml` in the working directory. Paths in the file are relative to the file's own
folder (so cron may run the command from anywhere). Flags given on the command line override
the file. Settings files (this one and the organisations' TOML) are validated with pydantic; data
frames stay with pandera.
"""
from __future__ import annotations

import difflib
import os
import tomllib
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipelines.core.settings import SettingsError

ENV_VAR = "POINTLEDGER_CONFIG"
FILE_NAME = "pointledger.toml"


class ConfigError(SettingsError):
    """A configuration or settings file is wrong; the message names the file, key, expected and found."""


class OfficeConfig(BaseModel):
    """The keys of pointledger.toml."""

    model_config = ConfigDict(extra="forbid")

    inbox: Path | None = Field(default=None, description="the inbox: one folder per organisation")
    state: Path = Field(default=Path("var"), description="run state: lake, warehouse, publications, run reports")
    data_dir: Path | None = Field(default=None, description="rule data and organisation settings (default: the bundled data)")
    publication_base_url: str | None = Field(default=None, description="where the publications are served, e.g. https://example.org/results/")
    organisations: list[str] | None = Field(default=None, min_length=1,
                                            description="organisations enabled (default: every one in the data directory)")
    max_file_mb: int | None = Field(default=None, gt=0, description="default size limit of an inbox file in MB")

    @field_validator("inbox", "state", "data_dir", mode="before")
    @classmethod
    def _a_folder(cls, value):
        # an empty text is the configuration file's own folder: the run would write its lake,
        # warehouse and pages among the office's files
        if isinstance(value, str) and not value.strip():
            raise ValueError("expected a folder (relative to this file's folder, or absolute), not an empty text")
        return value

    @field_validator("publication_base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith(("http://", "https://", "/")) or value == ""):
            raise ValueError("expected an http:// or https:// address, or a path starting with /")
        return value


def nearest(name: str, known: list[str]) -> str:
    """' (did you mean X?)' for a misspelt key, or ''."""
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The settings model that holds the key at `loc` (('seasons', 0, 'end_on') -> the model of a
    [[seasons]] table), so a misspelt key is compared with its own table's keys."""
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            return None
        inner = [a for a in (field.annotation, *typing.get_args(field.annotation))
                 if isinstance(a, type) and issubclass(a, BaseModel)]
        if not inner:
            return None
        model = inner[0]
    return model


def _key_name(loc: tuple) -> str:
    """'months_per_period', or 'seasons[2].ends_on' for a key of the second [[seasons]] table."""
    out = ""
    for part in loc:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def describe(error: ValidationError, path: Path | str, model: type[BaseModel]) -> str:
    """One line per problem: file, key, what was expected, what was found, the nearest valid key
    (of the table the key is in). Tables of a list are counted from 1, as the file shows them."""
    lines = []
    for problem in error.errors():
        loc, found = tuple(problem["loc"]), problem.get("input")
        key = _key_name(loc)
        if problem["type"] == "extra_forbidden":
            owner = _model_at(model, loc)
            known = list(owner.model_fields) if owner else []
            lines.append(f"{path}: unknown key {key!r}{nearest(str(loc[-1]), known)}; "
                         f"expected one of: {', '.join(known)}")
        elif problem["type"] == "missing":
            lines.append(f"{path}: key {key!r} is missing: it is required")
        else:
            lines.append(f"{path}: key {key!r}: {problem['msg'].lower()}; found {found!r}")
    return "\n".join(lines)


def read_settings(path: Path, model: type[BaseModel], shown: str | None = None) -> BaseModel:
    """The TOML file at `path` validated by `model`; errors name the file as `shown` (default: its
    path), each key, what was expected and what was found."""
    name = shown or path
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{name}: cannot read the file: {error.strerror or error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: not valid TOML: {error}") from error
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(describe(error, name, model)) from None


def find_config(explicit: Path | None, cwd: Path | None = None) -> Path | None:
    """--config, else $POINTLEDGER_CONFIG, else ./pointledger.toml, else None."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: no such configuration file (given with --config)")
        return explicit
    env = os.environ.get(ENV_VAR)
    if env:
        if not Path(env).is_file():
            raise ConfigError(f"{env}: no such configuration file (given by {ENV_VAR})")
        return Path(env)
    local = (cwd or Path.cwd()) / FILE_NAME
    return local if local.is_file() else None


def load_config(explicit: Path | None = None, cwd: Path | None = None) -> tuple[OfficeConfig, Path | None]:
    """The office configuration with its paths made absolute (relative to the file's folder)."""
    path = find_config(explicit, cwd)
    if path is None:
        return OfficeConfig(), None
    config = read_settings(path, OfficeConfig)
    base = path.resolve().parent

    def absolute(p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else base / p)

    return config.model_copy(update={
        "inbox": absolute(config.inbox), "state": absolute(config.state), "data_dir": absolute(config.data_dir),
    }), path


def merged(config: OfficeConfig, **flags: Any) -> OfficeConfig:
    """Flags given on the command line (not None) override the file."""
    return config.model_copy(update={k: v for k, v in flags.items() if v is not None})


TEMPLATE = """\
# pointledger configuration (written by `pointledger init`).
# Paths are relative to this file's folder. Run the nightly job from cron with, for example:
#   15 2 * * *  pointledger run --config {config_path} >> {log_path} 2>&1
# Exit codes: 0 posted, 3 posted with some input quarantined, 4 another run was busy, others failed
# (README, "Exit codes").

# The inbox: one folder per organisation (inbox/<organisation>/...), as clubs send their files.
inbox = "inbox"

# Run state: the lake (ledger), the warehouse var/warehouse.duckdb, publications, run reports.
state = "var"

# Rule tables and organisation settings (data/organisations/<organisation>.toml). This is a copy
# of the bundled example data: edit it, add your organisations; it is yours.
data_dir = "data"

# Where the publications folder (var/publications) is served from: the base of the Atom feeds'
# links (a feed reader fetches a feed alone; the pages link relatively and need none).
# publication_base_url = "https://example.org/results/"

# Organisations enabled (default: every organisation in data_dir/organisations).
# organisations = ["sofu-mahjong"]

# Largest inbox file read, in MB (an organisation may set its own max_file_mb).
# max_file_mb = 20
"""
