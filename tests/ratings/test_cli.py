"""`vlmscope ratings --out`: every --reference preset run on the golden inputs, compared to the
goldens. With --style-control the board is the plain fit and `style_control` the styled one."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ratings.arena_golden import GOLDEN_DIR, assert_board_matches, separable_in
from tests.ratings.verdict_golden import AH_V2_FILE_ORDER, BASELINE, VERDICTS_FILE, golden
from vlmscope.cli import ratings as cli

BATTLES_FILE = GOLDEN_DIR / "battles_5k.jsonl"
PROBENCH = golden("probench_show_result.json")
AH_V01 = golden("arena_hard_v01_verdicts.json")
AH_V2 = golden("arena_hard_v2_verdicts.json")
BOARDS = golden("fastchat_leaderboards.json")
COMPONENTS = golden("fastchat_components.json")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vlmscope")
    cli.add_subparser(parser.add_subparsers(dest="command", required=True))
    return parser


def run(tmp_path: Path, *argv: str) -> dict[str, Any]:
    out = tmp_path / "ratings.json"
    args = _parser().parse_args(["ratings", *argv, "--out", str(out)])
    assert args.func(args) == 0
    loaded: dict[str, Any] = json.loads(out.read_text())
    assert set(loaded) == {
        "models",
        "style_coefficients",
        "unparseable",
        "excluded",
        "settings",
        "style_control",
        "categories",
    }
    return loaded


def verdicts(tmp_path: Path, *flags: str, file: Path = VERDICTS_FILE) -> dict[str, Any]:
    return run(tmp_path, "verdicts", str(file), "--baseline", BASELINE, *flags)


@pytest.mark.parametrize("mode", ["both_games", "first_game_only"])
def test_probench_preset(tmp_path: Path, mode: str) -> None:
    # ProBench is style-controlled itself: --style-control adds no companion.
    flags = ["--first-game-only"] if mode == "first_game_only" else ["--style-control"]
    result = verdicts(tmp_path, "--reference", "probench", *flags)
    models = result["models"]
    for model, expected in PROBENCH[mode].items():
        entry = models[model]
        assert entry["battles"] == expected["n_battle_rows"]
        assert entry["winner_counts"] == expected["winner_counts"]
        np.testing.assert_allclose(
            list(entry["style_coefficients"].values()), expected["style_coef"], atol=2e-4, rtol=0
        )
        for name in (BASELINE, model):
            want, got = expected["ratings"][name], models[name]
            assert (got["rating"], got["lower"], got["upper"]) == (
                want["score_int"],
                want["lower_int"],
                want["upper_int"],
            )
            assert got["win_rate"] == pytest.approx(want["win_rate_pct"], abs=0.05)
            assert got["avg_tokens"] == expected["avg_tokens"][name]
        assert entry["rating_float"] == pytest.approx(
            expected["ratings"][model]["score_float"], abs=0.1
        )
    assert result["style_coefficients"] is None
    assert result["settings"]["style_control"] is True
    assert result["style_control"] is None
    assert result["unparseable"] > 0


@pytest.mark.parametrize("mode", ["both_games", "first_game_only"])
@pytest.mark.parametrize("style", ["no_style", "style_control"])
def test_arena_hard_v01_preset(tmp_path: Path, mode: str, style: str) -> None:
    flags = ["--first-game-only"] if mode == "first_game_only" else []
    flags += ["--style-control"] if style == "style_control" else []
    board = verdicts(tmp_path, "--reference", "arena-hard-v0.1", *flags)
    assert board["settings"]["style_control"] is False
    result = board["style_control"] if style == "style_control" else board
    assert result["settings"]["style_control"] is (style == "style_control")
    check_arena_hard_v01(board, AH_V01[mode]["no_style"], AH_V01[mode]["n_battle_rows"])
    check_arena_hard_v01(result, AH_V01[mode][style], AH_V01[mode]["n_battle_rows"])
    if style == "style_control":
        coefs = list(result["style_coefficients"].values())
        np.testing.assert_allclose(coefs, AH_V01[mode][style]["style_coef"], atol=2e-4, rtol=0)
    else:
        assert result["style_coefficients"] is None
        assert result["style_control"] is None


def check_arena_hard_v01(result: dict[str, Any], expected: dict[str, Any], rows: int) -> None:
    """One arena-hard v0.1 board against its golden (Elo and win-rate points and intervals)."""
    assert result["settings"]["n_battle_rows"] == rows
    for model, want in expected["elo"].items():
        got = result["models"][model]
        assert got["rating"] == pytest.approx(want["score"], abs=0.1)
        assert got["lower"] == pytest.approx(want["lower"], abs=0.2)
        assert got["upper"] == pytest.approx(want["upper"], abs=0.2)
        rates = expected["win_rate_pct"][model]
        assert got["win_rate"] == pytest.approx(rates["score"], abs=0.05)
        assert got["win_rate_lower"] == pytest.approx(rates["lower"], abs=0.05)
        assert got["win_rate_upper"] == pytest.approx(rates["upper"], abs=0.05)


@pytest.mark.parametrize("key", ["no_style", "style_length+markdown"])
def test_arena_hard_v2_preset(tmp_path: Path, key: str) -> None:
    # Feed the rows in the order the reference read its per-model judgment files.
    lines = [json.loads(line) for line in VERDICTS_FILE.read_text().splitlines()]
    lines.sort(key=lambda row: AH_V2_FILE_ORDER.index(row["model"]))
    ordered = tmp_path / "verdicts.jsonl"
    ordered.write_text("".join(json.dumps(row) + "\n" for row in lines))
    flags = ["--style-control"] if key != "no_style" else []
    board = verdicts(tmp_path, "--reference", "arena-hard-v2", *flags, file=ordered)
    check_arena_hard_v2(board, AH_V2["no_style"])
    result = board["style_control"] if key != "no_style" else board
    check_arena_hard_v2(result, AH_V2[key])
    if key == "no_style":
        assert result["style_coefficients"] is None
        assert result["style_control"] is None
    else:
        np.testing.assert_allclose(
            list(result["style_coefficients"].values()), AH_V2[key]["style_coef_median"], atol=2e-3
        )


def check_arena_hard_v2(result: dict[str, Any], expected: dict[str, Any]) -> None:
    """One arena-hard v2 board against its golden (win rates and intervals within 0.5)."""
    assert result["settings"]["n_battle_rows"] == AH_V2["n_battle_rows"]
    for model, got in result["models"].items():
        assert got["rating"] == pytest.approx(expected[model]["score_pct"], abs=0.5)
        for ours, theirs in zip(
            got["ci"].strip("()").split(" / "),
            expected[model]["ci"].strip("()").split(" / "),
            strict=True,
        ):
            assert float(ours) == pytest.approx(float(theirs), abs=0.5)


def test_fastchat_preset_full_board(tmp_path: Path) -> None:
    result = run(tmp_path, "battles", str(BATTLES_FILE), "--reference", "fastchat")
    assert_board_matches(result, BOARDS["full"])
    assert {m: e["rank"] for m, e in result["models"].items()} == BOARDS["full"]["final_ranking"]
    assert result["style_control"] is None and result["categories"] == {}


def test_fastchat_preset_style_control(tmp_path: Path) -> None:
    board = run(
        tmp_path, "battles", str(BATTLES_FILE), "--reference", "fastchat", "--style-control"
    )
    assert_board_matches(board, BOARDS["full"])
    assert board["settings"]["style_control"] is False
    assert board["style_coefficients"] is None
    result = board["style_control"]
    assert result["settings"]["style_control"] is True
    assert result["style_control"] is None
    assert_board_matches(result, BOARDS["full_style_control"])
    coefs = list(result["style_coefficients"].values())
    np.testing.assert_allclose(coefs, BOARDS["full_style_control"]["style_coef_final"], atol=2e-4)


def test_fastchat_preset_category_board(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        "battles",
        str(BATTLES_FILE),
        "--reference",
        "fastchat",
        "--category",
        "captioning",
    )
    assert_board_matches(result, BOARDS["captioning"], separable_in("captioning"))


def test_fastchat_preset_online_elo(tmp_path: Path) -> None:
    result = run(
        tmp_path, "battles", str(BATTLES_FILE), "--reference", "fastchat", "--system", "elo"
    )
    boot = COMPONENTS["compute_bootstrap_elo"]
    for model, got in result["models"].items():
        assert got["rating"] == pytest.approx(COMPONENTS["compute_elo"][model], abs=1e-6)
        assert got["lower"] == pytest.approx(boot["q0.025"][model], abs=0.2)
        assert got["upper"] == pytest.approx(boot["q0.975"][model], abs=0.2)


@pytest.mark.parametrize(
    ("anchor", "key"),
    [
        (None, "ah01_compute_mle_elo"),
        ("mixtral-8x7b-instruct-v0.1=1000", "ah01_compute_mle_elo_anchor_mixtral"),
    ],
)
def test_arena_hard_v01_preset_on_battles(tmp_path: Path, anchor: str | None, key: str) -> None:
    flags = ["--anchor", anchor] if anchor else []
    result = run(tmp_path, "battles", str(BATTLES_FILE), "--reference", "arena-hard-v0.1", *flags)
    for model, got in result["models"].items():
        assert got["rating"] == pytest.approx(COMPONENTS[key][model], abs=0.1)


def test_plain_run_is_seeded_and_anchorable(tmp_path: Path) -> None:
    first = run(
        tmp_path,
        "battles",
        str(BATTLES_FILE),
        "--seed",
        "5",
        "--bootstrap",
        "20",
        "--anchor",
        "glm-4v-72b-07=1200",
    )
    again = run(
        tmp_path,
        "battles",
        str(BATTLES_FILE),
        "--seed",
        "5",
        "--bootstrap",
        "20",
        "--anchor",
        "glm-4v-72b-07=1200",
    )
    other = run(
        tmp_path,
        "battles",
        str(BATTLES_FILE),
        "--seed",
        "6",
        "--bootstrap",
        "20",
        "--anchor",
        "glm-4v-72b-07=1200",
    )
    assert first == again
    assert first["models"]["glm-4v-72b-07"]["rating"] == pytest.approx(1200.0)
    assert first["models"] != other["models"]
    assert first["settings"]["stream"] == "generator"


@pytest.mark.parametrize(
    "argv",
    [
        ["battles", str(BATTLES_FILE), "--anchor", "no-value"],
        ["battles", str(BATTLES_FILE), "--anchor", "glm-4v-72b-07=nan"],
        ["battles", str(BATTLES_FILE), "--anchor", "glm-4v-72b-07=inf"],
        ["battles", str(BATTLES_FILE), "--system", "elo", "--style-control"],
        ["battles", str(BATTLES_FILE), "--bootstrap", "0"],
        [
            "verdicts",
            str(VERDICTS_FILE),
            "--baseline",
            BASELINE,
            "--reference",
            "arena-hard-v2",
            "--first-game-only",
        ],
        ["verdicts", str(VERDICTS_FILE), "--baseline", BASELINE, "--weight", "0"],
        ["verdicts", str(VERDICTS_FILE), "--baseline", "not-in-the-data"],
    ],
)
def test_bad_settings_exit_2_with_a_message(tmp_path: Path, argv: list[str], capsys) -> None:
    args = _parser().parse_args(["ratings", *argv, "--out", str(tmp_path / "x.json")])
    assert args.func(args) == 2
    assert "vlmscope ratings" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_help_explains_inputs_and_references(capsys) -> None:
    for command, words in (
        (
            "battles",
            ["fastchat", "--anchor", "MODEL=VALUE", "--category", "--result-dir", "visionarena"],
        ),
        (
            "verdicts",
            ["probench", "arena-hard-v2", "[[A>>B]]", "unparseable", "--track"],
        ),
    ):
        with pytest.raises(SystemExit):
            _parser().parse_args(["ratings", command, "--help"])
        text = capsys.readouterr().out
        for word in words:
            assert word in text


@pytest.mark.parametrize("categories", [[], ["--category", "ocr"]])
def test_an_anchor_on_no_battles_is_an_error_not_an_unpinned_board(
    tmp_path: Path, capsys, categories: list[str]
) -> None:
    """A typo in --anchor left the ratings unpinned while the settings said pinned; the
    streamed path (no categories) and the record path say so alike."""
    argv = ["battles", str(BATTLES_FILE), "--anchor", "glm-4v-72b-7=1200", *categories]
    args = _parser().parse_args(["ratings", *argv, "--out", str(tmp_path / "x.json")])
    assert args.func(args) == 2
    assert "--anchor: 'glm-4v-72b-7' has no battles on the board" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
