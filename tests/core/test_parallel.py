"""map_chunks: the same results, in the same order, in worker processes as in the run's own; a
pool that breaks costs its speed only; a wrong POINTLEDGER_WORKERS is a settings error."""
from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.core import parallel
from pipelines.core.settings import SettingsError

ROOT = Path(__file__).resolve().parents[2]


def where_and_square(chunk: list[int]) -> tuple[int, list[int]]:
    return os.getpid(), [n * n for n in chunk]


def dies_in_a_worker(chunk: list[int]) -> list[int]:
    if multiprocessing.parent_process() is not None:  # a worker killed (for memory, say) mid-way
        os._exit(1)
    return [n + 1 for n in chunk]


def raises(chunk: list[int]) -> list[int]:
    raise ValueError(f"bad chunk {chunk}")


CHUNKS = [list(range(i, i + 5)) for i in range(0, 40, 5)]


def test_workers_give_the_results_in_order_from_other_processes():
    done = parallel.map_chunks(where_and_square, CHUNKS, processes=2)
    assert [squares for _, squares in done] == [[n * n for n in c] for c in CHUNKS]  # hand-computable
    assert os.getpid() not in {pid for pid, _ in done}


def test_one_process_keeps_the_work_here():
    done = parallel.map_chunks(where_and_square, CHUNKS, processes=1)
    assert {pid for pid, _ in done} == {os.getpid()}
    assert parallel.map_chunks(where_and_square, [], processes=2) == []


def test_a_worker_that_dies_costs_its_speed_only(capsys):
    assert parallel.map_chunks(dies_in_a_worker, CHUNKS, processes=2) == [[n + 1 for n in c] for c in CHUNKS]
    assert "doing their work in this process" in capsys.readouterr().err


def test_an_error_of_the_work_itself_is_raised_as_without_workers():
    with pytest.raises(ValueError, match="bad chunk"):
        parallel.map_chunks(raises, CHUNKS, processes=2)


@pytest.mark.parametrize("value, expected", [("3", 3), (" 1 ", 1)])
def test_the_number_of_workers_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, value)
    assert parallel.workers() == expected


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_wrong_number_of_workers_is_a_settings_error(monkeypatch, value):
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, value)
    with pytest.raises(SettingsError, match=f"POINTLEDGER_WORKERS: expected a whole number.*found '{value}'"):
        parallel.workers()


def test_a_run_with_a_wrong_number_of_workers_stops_before_reading(tmp_path):
    from office import pointledger

    (tmp_path / "inbox" / "sofu-mahjong").mkdir(parents=True)
    (tmp_path / "inbox" / "sofu-mahjong" / "2026-11-03.txt").write_text("2026-11-03\n・1位A 40000\n・2位B 30000\n", encoding="utf-8")
    done = pointledger("run", "--inbox", tmp_path / "inbox", "--state", tmp_path / "var", env={parallel.WORKERS_VARIABLE: "none"})
    assert done.returncode == 5 and "POINTLEDGER_WORKERS" in done.stderr + done.stdout
    assert not (tmp_path / "var" / "warehouse.duckdb").exists()


def writes_slowly(chunk: tuple[str, int]) -> int:
    """A page a tenth of a second for ten seconds (and the worker's pid first)."""
    folder, worker = chunk
    Path(folder, f"pid-{os.getpid()}").write_text("", encoding="utf-8")
    for n in range(100):
        Path(folder, f"{worker}-{n}.html").write_text("page", encoding="utf-8")
        time.sleep(0.1)
    return 100


def _running(pid: int) -> bool:
    try:
        return "\tZ" not in Path(f"/proc/{pid}/status").read_text().split("State:")[1][:4]
    except FileNotFoundError:
        return False


def test_workers_of_a_killed_run_stop_and_end(tmp_path):
    """A run killed while its workers write pages (SIGKILL: nothing of it runs again): its workers
    end at once; none waits for work for ever, and no page of the killed run lands after the next
    run's."""
    pages = tmp_path / "pages"
    pages.mkdir()
    script = (f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests' / 'core')!r}]\n"
              "from pipelines.core.parallel import map_chunks\n"
              "from test_parallel import writes_slowly\n"
              f"map_chunks(writes_slowly, [({str(pages)!r}, 0), ({str(pages)!r}, 1)], processes=2)\n")
    run = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while len(list(pages.glob("*.html"))) < 6 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    assert run.poll() is None and len(list(pages.glob("*.html"))) >= 6, "the workers did not start writing"
    workers = [int(p.name[4:]) for p in pages.glob("pid-*")]
    assert len(workers) == 2
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    time.sleep(1.0)  # a page a tenth of a second: a worker still running would add about ten
    stopped = len(list(pages.glob("*.html")))
    time.sleep(1.0)
    assert len(list(pages.glob("*.html"))) == stopped
    assert [pid for pid in workers if _running(pid)] == []


def test_chunks_are_cut_between_pages_never_inside_one():
    # three pages: a a | b | c c c (rows of one page share a key)
    keys = ["a", "a", "b", "c", "c", "c"]
    assert parallel.chunk_ranges(keys, processes=1, per_chunk=10) == [(0, 6)]
    assert parallel.chunk_ranges(keys, processes=2, per_chunk=10) == [(0, 2), (2, 3), (3, 6)]  # no more chunks than pages
    assert parallel.chunk_ranges([], processes=2, per_chunk=10) == []
    # 20 one-row pages, 2 workers: 4 chunks a worker = 8 chunks of 2 or 3 pages ...
    assert parallel.chunk_ranges(list(range(20)), processes=2, per_chunk=10) == [
        (0, 2), (2, 5), (5, 7), (7, 10), (10, 12), (12, 15), (15, 17), (17, 20)]
    # ... and with at most 2 pages a chunk, 10 chunks of 2
    assert parallel.chunk_ranges(list(range(20)), processes=2, per_chunk=2) == [(i, i + 2) for i in range(0, 20, 2)]


def made_one_at_a_time(made: list[int]):
    """The CHUNKS, noting each as it is made."""
    for chunk in CHUNKS:
        made.append(chunk[0])
        yield chunk


def test_streamed_chunks_are_handed_over_as_made_with_a_bounded_number_waiting():
    made = []
    done = parallel.map_streamed(where_and_square, made_one_at_a_time(made), processes=2, ahead=1)
    assert [squares for _, squares in done] == [[n * n for n in c] for c in CHUNKS]
    assert os.getpid() not in {pid for pid, _ in done} and made == [c[0] for c in CHUNKS]
    # with one process each chunk is done as it is made, here
    assert {pid for pid, _ in parallel.map_streamed(where_and_square, iter(CHUNKS), processes=1)} == {os.getpid()}


def test_a_streamed_worker_that_dies_costs_its_speed_only(capsys):
    made = []
    assert parallel.map_streamed(dies_in_a_worker, made_one_at_a_time(made), processes=2, ahead=1) == \
        [[n + 1 for n in c] for c in CHUNKS]
    assert made == [c[0] for c in CHUNKS]  # every chunk done once it broke: none lost, none twice made
    assert "doing their work in this process" in capsys.readouterr().err


def fails_at_the_third(made: list[int]):
    for i, chunk in enumerate(CHUNKS):
        if i == 2:
            raise OSError("the source of the chunks failed")
        yield chunk


def test_an_error_of_the_chunks_source_is_raised_not_taken_for_a_broken_pool(capsys):
    with pytest.raises(OSError, match="the source of the chunks failed"):
        parallel.map_streamed(where_and_square, fails_at_the_third([]), processes=2)
    assert "doing their work" not in capsys.readouterr().err
