"""A damaged cache stops the run with its path and a way out; a bad row is asked again.

Item 4 of "No result is ever overwritten or silently changed": the file cases (garbage bytes,
a real cache cut in half, a foreign schema) raise `CacheDamaged`, whose commands are run here as
a user would paste them; a row that cannot be read is reported by key and re-asked by the real
runner, and `salvage` counts what it kept and lost, by reason.
"""

import json
import logging
import os
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest

import run_eval
from vlmscope.cache import NOT_A_RESPONSE, NOT_JSON, CacheDamaged, ResponseCache
from vlmscope.cache_salvage import DAMAGED_PAGES, salvage
from vlmscope.cache_salvage import main as salvage_main
from vlmscope.config import load_config
from vlmscope.hub_export import load_folder
from vlmscope.messages import Response, Status
from vlmscope.runner import loop
from vlmscope.runner.results import result_dir

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "tests" / "configs" / "colours_oracle.yaml"
LIMIT = 10  # the first 10 samples of the colour track are 10 distinct requests


def make_cache(path: Path, n: int) -> dict[str, Response]:
    stored = {f"key-{i:05d}": Response(f"answer {i} " + "x" * 200) for i in range(n)}
    cache = ResponseCache(path)
    cache.put_many(stored, backend="m")
    cache.close()  # the last close checkpoints the WAL into the file and removes it
    return stored


def cut_in_half(path: Path) -> None:
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)


def set_value(path: Path, key: str, text: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE responses SET response = ? WHERE key = ?", (text, key))
    conn.close()


def commands(err: CacheDamaged) -> tuple[str, str]:
    """The two commands the message offers: move aside; move aside and salvage."""
    lines = [line.strip() for line in str(err).splitlines() if line.startswith("    ")]
    assert len(lines) == 2, str(err)
    return lines[0], lines[1]


def shell(command: str) -> str:
    done = subprocess.run(
        ["bash", "-c", command],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run(out: Path) -> int:
    args = ["--config", str(CONFIG), "--output-dir", str(out), "--limit", str(LIMIT)]
    return run_eval.main(args)


def run_loop(out: Path) -> None:
    """The runner itself (the command line turns its `CacheDamaged` into a message and exit 2)."""
    loop.run(load_config(CONFIG, {"output_dir": str(out), "limit": LIMIT}))


def details(out: Path) -> dict[str, tuple]:
    rows = load_folder(result_dir(out, "oracle", "colours", LIMIT), "details")
    return {r["sample_id"]: (r["response"], r["scores"], r["status"], r["error"]) for r in rows}


def run_counts(out: Path) -> dict:
    summary = load_folder(result_dir(out, "oracle", "colours", LIMIT), "summary")[0]
    return dict(summary["run_counts"])


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("clean")
    assert run(out) == 0
    return out


def test_garbage_file_stops_the_run_with_its_path_and_the_commands(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "cache.sqlite"
    garbage = random.Random(0).randbytes(8192)
    path.write_bytes(garbage)

    with pytest.raises(CacheDamaged) as caught:
        run_loop(out)
    message = str(caught.value)
    assert caught.value.path == path and str(path) in message and "not a database" in message
    move, rescue = commands(caught.value)
    assert move.startswith(f"mv {path} {path}.damaged-")
    assert rescue.startswith(move + " && python -m vlmscope.cache_salvage ")
    assert rescue.endswith(f".damaged-{move.rsplit('.damaged-', 1)[1]} {path}")
    assert path.read_bytes() == garbage
    assert sorted(os.listdir(out)) == ["cache.sqlite"]  # nothing else written, the lock released

    assert run(out) == 2  # the command line prints the same message and stops

    shell(move)  # the way out works as printed: the file is kept aside, the run starts afresh
    assert run(out) == 0
    assert [p.name for p in out.glob("cache.sqlite.damaged-*")] == [Path(move.split()[-1]).name]
    assert run_counts(out)["generated"] == LIMIT


def test_real_cache_cut_in_half_is_damaged_and_salvage_gets_the_run_back(tmp_path, clean):
    out = tmp_path / "out"
    assert run(out) == 0
    path = out / "cache.sqlite"
    assert ResponseCache(path).count() == LIMIT
    cut_in_half(path)

    with pytest.raises(CacheDamaged) as caught:
        run_loop(out)
    assert str(path) in str(caught.value) and "malformed" in str(caught.value)
    _, rescue = commands(caught.value)
    printed = shell(rescue)
    assert "kept" in printed and str(path) in printed

    assert run(out) == 0  # asks again what salvage could not keep; the results are the same
    assert details(out) == details(clean)
    counts = run_counts(out)
    assert counts["cached"] + counts["generated"] == LIMIT and counts["generated"] > 0


def test_larger_cache_cut_in_half_is_refused_on_open_and_half_salvaged(tmp_path):
    path = tmp_path / "cache.sqlite"
    stored = make_cache(path, 1000)
    cut_in_half(path)
    with pytest.raises(CacheDamaged, match="malformed") as caught:
        ResponseCache(path)
    assert str(path) in str(caught.value)

    report = salvage(path, tmp_path / "salvaged.sqlite")
    assert 300 < report.kept < 700
    assert any("end of the table could not be read" in note for note in report.notes)
    fresh = ResponseCache(tmp_path / "salvaged.sqlite")
    kept = fresh.get_many(stored)
    assert len(kept) == report.kept and all(stored[k] == r for k, r in kept.items())


def test_a_database_without_the_responses_table_is_refused_unchanged(tmp_path):
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(CacheDamaged, match="no 'responses' table, only notes") as caught:
        ResponseCache(path)
    assert str(path) in str(caught.value) and "mv " in str(caught.value)
    assert path.read_bytes() == before  # not switched to WAL, no table added


def test_a_responses_table_of_another_schema_is_refused(tmp_path):
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, value TEXT)")
    conn.close()
    with pytest.raises(CacheDamaged, match="'responses' table has columns") as caught:
        ResponseCache(path)
    assert "python -m vlmscope.cache_salvage" in str(caught.value)
    report = salvage(path, tmp_path / "salvaged.sqlite")
    assert report.kept == 0 and "columns" in report.notes[0]


def test_an_unreadable_row_reads_as_missing_and_an_answer_replaces_it(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    make_cache(path, 5)
    set_value(path, "key-00001", '{"text": "half a')
    set_value(path, "key-00003", json.dumps({"status": "ok"}))  # from_json rejects it
    cache = ResponseCache(path)

    with caplog.at_level(logging.WARNING, logger="vlmscope.cache"):
        got = cache.get_many([f"key-{i:05d}" for i in range(5)])
        assert cache.get("key-00001") is None
    assert sorted(got) == ["key-00000", "key-00002", "key-00004"]
    assert sorted(cache.unreadable) == ["key-00001", "key-00003"]
    assert NOT_JSON in cache.unreadable["key-00001"]
    assert NOT_A_RESPONSE in cache.unreadable["key-00003"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per key, however often it is read
    assert "key-00001" in warnings[0] and "key-00003" in warnings[0] and str(path) in warnings[0]

    cache.put_many({"key-00001": Response("asked again"), "key-00002": Response("no")}, backend="m")
    assert cache.get("key-00001") == Response("asked again")  # replaced although ok=1 was stored
    assert cache.get("key-00002").text.startswith("answer 2")  # a good answer stays final
    cache.put_many({"key-00003": Response("", Status.REQUEST_FAILED, "x")}, backend="m")
    cache.put_many({"key-00003": Response("later")}, backend="m")
    assert cache.get("key-00003") == Response("later")


def test_the_runner_asks_again_exactly_the_unreadable_request(tmp_path, clean, caplog):
    out = tmp_path / "out"
    assert run(out) == 0
    path = out / "cache.sqlite"
    with sqlite3.connect(path) as conn:
        keys = sorted(k for (k,) in conn.execute("SELECT key FROM responses"))
    conn.close()
    assert len(keys) == LIMIT
    bad = keys[3]
    set_value(path, bad, '{"text": "red", "status": ')

    with caplog.at_level(logging.WARNING, logger="vlmscope.cache"):
        assert run(out) == 0
    assert details(out) == details(clean)
    counts = run_counts(out)
    assert counts["generated"] == 1 and counts["cached"] == LIMIT - 1
    warned = [r.getMessage() for r in caplog.records if r.name == "vlmscope.cache"]
    assert len(warned) == 1 and [k for k in keys if k in warned[0]] == [bad]
    fresh = ResponseCache(path)
    assert fresh.get(bad) is not None and fresh.unreadable == {} and fresh.count() == LIMIT


def zero_a_leaf_page(path: Path) -> int:
    """Zero one leaf page in the middle of the table; returns how many rows it held."""
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        leaves = conn.execute(
            "SELECT pageno, ncell FROM dbstat WHERE name = 'responses' AND pagetype = 'leaf'"
            " ORDER BY pageno"
        ).fetchall()
    conn.close()
    pageno, ncell = leaves[len(leaves) // 2]
    with path.open("r+b") as f:
        f.seek((pageno - 1) * page_size)
        f.write(bytes(page_size))
    return ncell


def test_salvage_counts_kept_and_lost_rows_by_reason(tmp_path, capsys):
    src = tmp_path / "cache.sqlite"
    stored = make_cache(src, 300)
    set_value(src, "key-00010", "not json at all")
    set_value(src, "key-00020", json.dumps({"text": "x", "status": "no such status"}))
    on_page = zero_a_leaf_page(src)
    before = src.read_bytes()

    assert salvage_main([str(src), str(tmp_path / "new.sqlite")]) == 0
    printed = capsys.readouterr().out
    kept = 300 - 2 - on_page
    assert f"kept {kept} rows" in printed
    assert f"lost 1 rows: {NOT_JSON}" in printed and f"lost 1 rows: {NOT_A_RESPONSE}" in printed
    assert f"lost {on_page} rows: {DAMAGED_PAGES}" in printed
    assert "key-00010" in printed and "key-00020" in printed
    assert src.read_bytes() == before  # read from a copy
    assert sorted(os.listdir(tmp_path)) == ["cache.sqlite", "new.sqlite"]  # the copy is gone

    fresh = ResponseCache(tmp_path / "new.sqlite")
    got = fresh.get_many(stored)
    assert fresh.count() == len(got) == kept and all(stored[k] == r for k, r in got.items())
    assert "key-00010" not in got and fresh.unreadable == {}


def test_salvage_never_overwrites(tmp_path, capsys):
    src = tmp_path / "cache.sqlite"
    make_cache(src, 3)
    dst = tmp_path / "taken.sqlite"
    dst.write_bytes(b"mine")
    assert salvage_main([str(src), str(dst)]) == 2
    assert str(dst) in capsys.readouterr().err and dst.read_bytes() == b"mine"


def test_damage_found_after_opening_is_reported_the_same_way(tmp_path):
    path = tmp_path / "cache.sqlite"
    stored = make_cache(path, 300)
    zero_a_leaf_page(path)
    cache = ResponseCache(path)  # the table list and schema still read fine
    with pytest.raises(CacheDamaged, match="malformed") as caught:
        cache.get_many(stored)
    assert str(path) in str(caught.value) and "cache_salvage" in str(caught.value)
