"""Installed like a tool, configured once (issue 12): the config file, `init`, exit codes, the wheel."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from office import pointledger

ROOT = Path(__file__).resolve().parents[2]
GAME = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"


cli = pointledger  # `pointledger ARGS` from a folder, in this process (tests/office.py)


def office_with_one_org(root: Path) -> Path:
    """`pointledger init` with only the mahjong organisation enabled and one game in the inbox."""
    done = cli("init", str(root / "office"), cwd=root)
    assert done.returncode == 0, done.stderr
    office = root / "office"
    config = office / "pointledger.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('# organisations = ["sofu-mahjong"]',
                                                                  'organisations = ["sofu-mahjong"]'), encoding="utf-8")
    (office / "inbox" / "sofu-mahjong").mkdir(parents=True)
    (office / "inbox" / "sofu-mahjong" / "2026-11-03.txt").write_text(GAME, encoding="utf-8")
    return office


def test_run_without_config_or_inbox_posts_nothing_and_says_why(tmp_path):
    done = cli("run", cwd=tmp_path)
    assert done.returncode == 2
    assert "no inbox" in done.stderr and "pointledger init" in done.stderr
    assert not (tmp_path / "var").exists()  # nothing written into whatever folder cron runs in


def test_init_writes_a_commented_config_and_the_layout(tmp_path):
    done = cli("init", str(tmp_path / "office"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    office = tmp_path / "office"
    text = (office / "pointledger.toml").read_text(encoding="utf-8")
    assert 'inbox = "inbox"' in text and 'state = "var"' in text and 'data_dir = "data"' in text and "# " in text
    assert (office / "inbox").is_dir() and (office / "var").is_dir()
    assert (office / "data" / "organisations" / "sofu-mahjong.toml").is_file()
    assert not (office / "data" / "samples").exists()
    again = cli("init", str(office), cwd=tmp_path)
    assert again.returncode == 5 and "already exists" in again.stderr


@pytest.mark.parametrize("how", ["flag", "environment", "working directory"])
def test_the_config_is_found_and_its_paths_are_relative_to_it(tmp_path, how):
    office = office_with_one_org(tmp_path)
    elsewhere = tmp_path / "cron-runs-here"
    elsewhere.mkdir()
    config = office / "pointledger.toml"
    if how == "flag":
        done = cli("run", "--config", str(config), "--as-of", "2026-12-02", cwd=elsewhere)
    elif how == "environment":
        done = cli("run", "--as-of", "2026-12-02", cwd=elsewhere, env={"POINTLEDGER_CONFIG": str(config)})
    else:
        done = cli("run", "--as-of", "2026-12-02", cwd=office)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (office / "var" / "warehouse.duckdb").is_file()
    assert not (elsewhere / "var").exists()


def test_the_publication_base_url_makes_the_feeds_links_absolute(tmp_path):
    # a feed reader fetches feed.atom alone: its relative links must resolve where the office
    # serves var/publications (xml:base); without the key the feed has no base
    import xml.etree.ElementTree as ET
    from urllib.parse import urljoin

    office = office_with_one_org(tmp_path)
    config = office / "pointledger.toml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        '# publication_base_url = "https://example.org/results/"', 'publication_base_url = "https://example.org/results/"'),
        encoding="utf-8")
    assert cli("run", "--config", str(config), "--as-of", "2026-12-02", cwd=tmp_path).returncode == 0
    feed = ET.fromstring((office / "var" / "publications" / "sofu-mahjong" / "feed.atom").read_bytes())
    base = feed.get("{http://www.w3.org/XML/1998/namespace}base")
    assert base == "https://example.org/results/sofu-mahjong/"
    [entry_link] = [e.get("href") for e in feed.iter("{http://www.w3.org/2005/Atom}link") if e.get("href") == "index.html"][:1]
    assert urljoin(base, entry_link) == "https://example.org/results/sofu-mahjong/index.html"


def test_flags_override_the_config(tmp_path):
    office = office_with_one_org(tmp_path)
    done = cli("run", "--config", str(office / "pointledger.toml"), "--state", str(tmp_path / "other-state"),
               "--as-of", "2026-12-02", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "other-state" / "warehouse.duckdb").is_file()
    assert not (office / "var" / "warehouse.duckdb").exists()


def test_config_errors_name_the_file_the_key_and_the_nearest_valid_key(tmp_path):
    config = tmp_path / "pointledger.toml"
    config.write_text('inbx = "inbox"\nmax_file_mb = "lots"\n', encoding="utf-8")
    done = cli("run", cwd=tmp_path)
    assert done.returncode == 5
    err = " ".join(done.stderr.split())
    assert f"{config}: unknown key 'inbx' (did you mean 'inbox'?)" in err
    assert "key 'max_file_mb'" in err and "'lots'" in err


def test_an_empty_folder_or_organisation_list_is_a_config_error(tmp_path):
    # state = "" would be the office folder itself; organisations = [] would post nothing, exit 0
    config = tmp_path / "pointledger.toml"
    config.write_text('inbox = "inbox"\nstate = ""\norganisations = []\n', encoding="utf-8")
    (tmp_path / "inbox").mkdir()
    done = cli("run", cwd=tmp_path)
    assert done.returncode == 5
    err = " ".join(done.stderr.split())
    assert (f"{config}: key 'state': value error, expected a folder (relative to this file's folder, or absolute), "
            "not an empty text; found ''") in err
    assert f"{config}: key 'organisations': list should have at least 1 item after validation, not 0; found []" in err
    assert not (tmp_path / "lake").exists()


def test_a_state_folder_inside_the_inbox_is_refused(tmp_path):
    office = office_with_one_org(tmp_path)
    done = cli("run", "--config", str(office / "pointledger.toml"), "--state", str(office / "inbox" / "var"), cwd=tmp_path)
    assert done.returncode == 5
    assert (f"the state folder {office / 'inbox' / 'var'} is inside the inbox {office / 'inbox'}: the run would read "
            "its own files as results") in " ".join(done.stderr.split())
    assert not (office / "inbox" / "var").exists()


def test_organisation_settings_errors_suggest_the_nearest_key(tmp_path):
    office = office_with_one_org(tmp_path)
    settings = office / "data" / "organisations" / "sofu-mahjong.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("game_total", "game_totl"), encoding="utf-8")
    done = cli("run", "--config", str(office / "pointledger.toml"), cwd=tmp_path)
    assert done.returncode == 5
    assert "unknown key 'game_totl' (did you mean 'game_total'?)" in " ".join(done.stderr.split())


def test_an_enabled_organisation_that_does_not_exist_is_a_config_error(tmp_path):
    office = office_with_one_org(tmp_path)
    config = office / "pointledger.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('["sofu-mahjong"]', '["sofu-mahjon"]'), encoding="utf-8")
    done = cli("run", "--config", str(config), cwd=tmp_path)
    assert done.returncode == 5 and "'sofu-mahjon' (did you mean 'sofu-mahjong'?)" in " ".join(done.stderr.split())


@pytest.mark.parametrize("args, code", [
    (["run", "--inbox", "x", "--as-of", "2026-13-45"], 2),  # a wrong flag value: usage
    (["run", "--no-such-flag"], 2),
    (["check", "missing-file.txt"], 2),
    (["explain"], 2),
])
def test_usage_errors_exit_2(tmp_path, args, code):
    assert cli(*args, cwd=tmp_path).returncode == code


def test_check_of_a_file_of_an_unknown_organisation_exits_5(tmp_path):
    folder = tmp_path / "no-such-club"
    folder.mkdir()
    (folder / "a.txt").write_text(GAME, encoding="utf-8")
    done = cli("check", str(folder / "a.txt"), cwd=tmp_path)
    assert done.returncode == 5 and "unknown organisation 'no-such-club'" in done.stderr


def test_the_wheel_installs_into_a_fresh_virtualenv_and_runs_the_samples(tmp_path):
    """Build the wheel, install it (with its pinned dependencies) into a new virtualenv outside
    the checkout, and run the bundled samples from an office folder written by `init`."""
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next(dist.glob("pointledger-*.whl"))
    env_dir = tmp_path / "venv"
    # a virtualenv without pip of its own (bootstrapping pip costs as much as a third of the
    # install); the suite's pip installs into it (`pip --python`), as pipx does
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # --no-compile: pip would byte-compile every module of every dependency (pandas, pyarrow,
    # duckdb: half the install's time); Python compiles the modules the run imports as it goes
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-compile",
                                str(wheel)],
                               capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    tool = env_dir / "bin" / "pointledger"
    away = tmp_path / "server"
    away.mkdir()
    environment = {k: v for k, v in os.environ.items() if k not in ("POINTLEDGER_CONFIG", "PYTHONPATH")}
    done = subprocess.run([str(tool), "init", "office", "--with-samples"], cwd=away, capture_output=True, text=True,
                          env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    ran = subprocess.run([str(tool), "run", "--as-of", "2026-12-02"], cwd=away / "office", capture_output=True,
                         text=True, env=environment, timeout=600)
    # the samples hold malformed files on purpose: finished, some input quarantined
    assert ran.returncode == 3, ran.stdout[-3000:] + ran.stderr[-3000:]
    where = subprocess.run([str(python), "-c", "import pipelines, sys; print(pipelines.__file__)"], cwd=away,
                           capture_output=True, text=True, env=environment)
    assert str(env_dir) in where.stdout  # the installed package ran, not the checkout
    assert (away / "office" / "var" / "warehouse.duckdb").is_file()
    assert any((away / "office" / "var" / "publications").rglob("*.html"))
