"""`vlmscope visionarena build-bench` and `topics` end to end with the tiny random CLIP: the same
command writes the same bytes, the bench reads in the builder, the topic folder holds the
cluster table and the map, bad input and a missing extra stop with one line naming the fix,
and building the parser imports nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.visionarena.planted_chats import Planted, write_planted
from vlmscope.cli import main as vlmscope_main
from vlmscope.datasets.visionarena import build
from vlmscope.models.tiny_clip import ensure_tiny_clip
from vlmscope.tracks.visionarena import bench_extras
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, read_bench_rows

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tiny_clip(tmp_path_factory.mktemp("models") / "tiny-clip")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return write_planted(tmp_path_factory.mktemp("planted"), per_group=12)


def build_bench(data: Path, out: Path, clip: Path, *extra: str) -> int:
    return vlmscope_main(
        ["visionarena", "build-bench", str(data), "--out", str(out), "--model", str(clip),
         "--quiet", "--min-cluster-size", "5", *extra]
    )  # fmt: skip


def test_the_same_command_writes_the_same_bench_byte_for_byte(
    planted: Planted, clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build_bench(planted.folder, tmp_path / "a", clip, "--size", "20") == 0
    printed = capsys.readouterr().out
    assert "wrote 20 bench prompts" in printed and "exact_duplicate 6" in printed
    assert build_bench(planted.folder, tmp_path / "b", clip, "--size", "20") == 0
    written = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.*"))
    assert len(written) == 5
    for name in written:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    rows = read_bench_rows(tmp_path / "a")
    assert len(rows) == 20 == build("bench", tmp_path / "a", str(tmp_path / "cache")).num_rows
    settings = json.loads((tmp_path / "a" / "curation" / "settings.json").read_text())
    assert settings["embedding"]["model_type"] == "clip"
    assert settings["parameters"]["clusters"]["min_cluster_size"] == 5


def test_the_shipped_chat_sample_gives_a_small_bench_and_says_why_it_is_one_cluster(
    clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build_bench(SAMPLE_DIR / "chat", tmp_path / "bench", clip) == 0
    printed = capsys.readouterr().out
    assert "clustering skipped: 2 prompts" in printed
    assert [r.question_id for r in read_bench_rows(tmp_path / "bench")] == [
        "va-chat-0",
        "va-chat-2",
    ]
    card = (tmp_path / "bench" / "README.md").read_text()
    assert "2024-08-30T06:40:00+00:00 to 2024-08-30T06:42:00+00:00" in card
    assert "**Not clustered**: 2 prompts, fewer than 10" in card  # --min-cluster-size 5


def test_topics_writes_the_cluster_table_and_the_map(
    planted: Planted, clip: Path, tmp_path: Path
) -> None:
    out = tmp_path / "topics"
    code = vlmscope_main(
        ["visionarena", "topics", str(planted.folder), "--out", str(out), "--model", str(clip),
         "--quiet", "--min-cluster-size", "5", "--map-points", "30", "--source", "planted"]
    )  # fmt: skip
    assert code == 0
    clusters = pq.read_table(out / "clusters" / "test-00000-of-00001.parquet").to_pylist()
    points = pq.read_table(out / "points" / "test-00000-of-00001.parquet").to_pylist()
    assert len(points) == 30
    assert {p["cluster"] for p in points} <= {c["cluster"] for c in clusters}
    settings = json.loads((out / "topics.json").read_text())
    assert settings["source"] == "planted"
    # the topic map keeps duplicates, multi-turn and imageless prompts: every English one
    assert sum(c["size"] for c in clusters) == settings["prompts_clustered"] == 12 * 5 + 12 + 2
    assert settings["map"]["points"] == 30 and settings["map"]["n_components"] == 2


@pytest.mark.parametrize(
    ("option", "message"),
    [(["--size", "-1"], "--size must be >= 0"), (["--min-cluster-size", "1"], "must be >= 2")],
)
def test_a_bad_option_stops_with_its_name(
    clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    assert build_bench(SAMPLE_DIR / "chat", tmp_path / "x", clip, *option) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_missing_extra_names_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_extras, "_found", lambda module: module not in {"umap", "hdbscan"})
    code = vlmscope_main(["visionarena", "build-bench", str(SAMPLE_DIR / "chat"), "--out", "x"])
    assert code == 2
    err = capsys.readouterr().err
    assert "umap-learn, hdbscan" in err and "pip install 'vlmscope[bench]'" in err


def test_building_the_parser_imports_nothing_heavy() -> None:
    script = (
        "import sys, json\n"
        "from vlmscope.cli import build_parser\n"
        "argv = ['visionarena', 'build-bench', 'd', '--out', 'o']\n"
        "build_parser(argv).parse_args(argv)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout.splitlines()[-1])
    heavy = {"torch", "transformers", "umap", "hdbscan", "sklearn", "datasketch", "numba"}
    assert {m.split(".")[0] for m in loaded} & heavy == set()
    assert "vlmscope.tracks.visionarena.bench_curation" not in loaded


def test_an_input_with_no_prompt_for_the_bench_writes_nothing(
    clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = SAMPLE_DIR / "chat" / "data" / "train-00000-of-00001.parquet"
    (tmp_path / "none" / "data").mkdir(parents=True)  # the upstream columns, no conversation
    pq.write_table(pq.read_table(sample).slice(0, 0), tmp_path / "none" / "data" / sample.name)
    bench = tmp_path / "bench"
    assert build_bench(SAMPLE_DIR / "chat", bench, clip) == 0
    assert build_bench(tmp_path / "none", bench, clip, "--overwrite") == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == (
        f"error: vlmscope visionarena build-bench: {tmp_path / 'none'}: no conversation "
        f"qualifies for the bench (none read); nothing written to {bench}"
    )
    assert len(read_bench_rows(bench)) == 2  # the bench already there is kept
