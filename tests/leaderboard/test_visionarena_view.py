"""VisionArena page data over real boards: the human-vote board of the shipped battle sample as
`vlmscope visionarena leaderboard --result-dir` writes it, and a VisionArena-Bench run of the
real runner (coin models named like the battles' models, a coin judge) with its joint board.

Every number is checked against what it stands for: tie shares against counts over the sample's
rows, stars against the votes on each board, rank changes against the two views' ranks, style
coefficients against each twin's, the bench's win-rate intervals against the board's, the
agreement against `compare_leaderboards`; what a board could not fit is stated with its reason.
`write_visionarena_results` also serves the browser test (`test_visionarena_browser`).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.leaderboard.fabricate import PAYLOAD
from vlmscope.cli import main as vlmscope_main
from vlmscope.config import parse_config
from vlmscope.leaderboard import visionarena_battles as vbt
from vlmscope.leaderboard import visionarena_bench_view as vbench
from vlmscope.leaderboard import visionarena_view as va
from vlmscope.leaderboard.load import ResultsLocation, read_config_rows
from vlmscope.leaderboard.rating_view import OVERALL, TOO_FEW, board_view, too_few_votes
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards import agreement
from vlmscope.ratings.boards.board import STYLE_CONTROL_SKIPPED, BoardSettings, RatingBoard
from vlmscope.runner.loop import run
from vlmscope.tracks.visionarena.report import ArenaSettings, arena_leaderboard
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, BattleRow, battle_record, read_battle_rows

ARENA = "visionarena"
BENCH = "visionarena_bench"
BATTLES = SAMPLE_DIR / "battle"
MIN_VOTES = 20  # the sample's 100 battles: no model is thin on the whole board, some on others
ANCHOR = "corvid-vlm-34b"
REPLIES = {  # the coin models' answers: different lengths and markdown, so style can be fitted
    "lumen-vl-70b": "# Answer\n\n- the figure shows {label}\n- **clearly** so, and in some detail",
    "orchid-vision-13b": "**{label}**: a short answer",
    ANCHOR: "It is {label}.",
    "tessera-vl-8b": "## {label}\n\n1. first\n2. second\n3. third point of a long answer here",
    "pixelsage-7b": "{label}",
}
HOSTILE_BATTLE = "va-battle-023"  # two turns: lumen-vl-70b vs tessera-vl-8b, model_b won


def write_battle_data(folder: Path) -> Path:
    """The shipped Battle sample with `PAYLOAD` written into `HOSTILE_BATTLE`'s conversations
    (the second question, Model A's second answer, Model B's first): what a user or a model
    could have typed. The votes, models and flags are the sample's, so the board is too."""
    source = next(BATTLES.glob("data/*.parquet"))
    table = pq.read_table(source)
    rows = table.to_pylist()
    for row in rows:
        if row["question_id"] == HOSTILE_BATTLE:
            row["conversation_a"][1][0]["content"] += f"\n{PAYLOAD}"
            row["conversation_a"][1][1]["content"] += f"\n{PAYLOAD}"
            row["conversation_b"][1][0]["content"] += f"\n{PAYLOAD}"
            row["conversation_b"][0][1]["content"] += f"\n{PAYLOAD}"
    target = folder / "data" / source.name
    target.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), target)
    return folder


def write_visionarena_results(out: Path) -> None:
    """The human-vote board of the shipped battles (the leaderboard command) and a bench run."""
    argv = [
        "visionarena",
        "leaderboard",
        str(BATTLES),
        "--result-dir",
        str(out / "_boards" / ARENA),
    ]
    assert vlmscope_main([*argv, "--bootstrap", "20", "--min-votes", str(MIN_VOTES)]) == 0
    config = {
        "output_dir": str(out),
        "models": [{"backend": "coin", "name": name, "reply": r} for name, r in REPLIES.items()],
        "tracks": [
            {
                "name": BENCH,
                "judge": {"backend": "coin", "name": "coin-judge"},
                "options": {"baseline": ANCHOR, "bootstrap_rounds": 20, "style_control": True},
            }
        ],
    }
    (report,) = run(parse_config(config)).boards
    assert report.error is None


@pytest.fixture(scope="module")
def va_store(tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    out = tmp_path_factory.mktemp("visionarena") / "results"
    write_visionarena_results(out)
    return ResultStore(ResultsLocation.local(out))


@pytest.fixture(scope="module")
def board(va_store: ResultStore) -> RatingBoard:
    return va_store.boards[ARENA].board


@pytest.fixture(scope="module")
def bench(va_store: ResultStore) -> RatingBoard:
    return va_store.boards[BENCH].board


@pytest.fixture(scope="module")
def rows() -> list[BattleRow]:
    return read_battle_rows(BATTLES)


def test_both_boards_land_on_the_visionarena_page(va_store: ResultStore, space_app) -> None:  # noqa: ANN001
    _, pages, _ = space_app
    assert va_store.problems == [] and {ARENA, BENCH} <= set(va_store.boards)
    assert pages.page_for(va_store, ARENA) is pages.visionarena_tab
    assert pages.page_for(va_store, BENCH) is pages.visionarena_tab
    assert va.is_arena_board(va_store.boards[ARENA].board)
    assert not va.is_arena_board(va_store.boards[BENCH].board)


def test_the_page_builds_with_every_part(va_store: ResultStore, space_app) -> None:  # noqa: ANN001
    app, _, _ = space_app
    demo = app.build_app(va_store)
    ids = {block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)}
    for part in ("table", "category", "style", "ties", "style-coefficients", "agreement"):
        assert f"visionarena-{part}" in ids
    for part in ("battle", "battle-a", "battle-b", "battle-summary"):
        assert f"visionarena-{part}" in ids
    assert {"visionarena_bench-table", "visionarena_bench-agreement"} <= ids


def test_the_board_picker_lists_every_board_in_the_leaderboards_order(board: RatingBoard) -> None:
    values = [value for _, value in va.category_choices(board)]
    assert values[0] == OVERALL
    assert set(values[1:]) == set(board.categories) | set(board.skipped_categories)
    assert values[1:4] == ["captioning", "entity_recognition", "ocr"]
    assert values[-3:] == ["language: English", "language: Chinese", "language: Russian"]
    # the few Russian battles link two pairs of models that never met: listed, not fitted
    assert dict(va.category_choices(board))["Language: Russian (not fitted)"] == "language: Russian"
    assert dict(va.category_choices(board))["Exclude preset images"] == "is_preset"


def _on_board(row: BattleRow, name: str) -> bool:
    """Whether a battle of the sample belongs to a board, from the row itself."""
    flags = {k for k, v in row.categories.items() if v}
    flag = {"creative_writing_vision": "creative_writing"}.get(name, name)
    if name == OVERALL:
        return True
    if name.startswith("language: "):
        return row.language == name.removeprefix("language: ")
    return {
        "no_refusal": "refusal" not in flags,
        "is_preset": not row.is_preset,  # the board excludes preset images
        "multiturn": row.turn > 1,
        "no_tie": "tie" not in row.winner,
    }.get(name, flag in flags)


def test_tie_shares_are_the_sample_counts(board: RatingBoard, rows: list[BattleRow]) -> None:
    frame = va.tie_frame(board).set_index("Board")
    assert len(frame) == 1 + len(board.categories) + len(board.skipped_categories)
    assert list(frame.columns) == [*va.TIE_COLUMNS[1:], va.STYLE_NOTE]  # a board was skipped
    for name in va.board_names(board):
        if name in board.skipped_categories:  # not fitted: the note says why
            assert frame.loc[va.label_of(name), va.STYLE_NOTE].startswith("not fitted: ")
            continue
        mine = [r for r in rows if _on_board(r, name)]
        ties = sum(r.winner == "tie" for r in mine)
        both_bad = sum(r.winner == "tie (bothbad)" for r in mine)
        shown = frame.loc[va.label_of(name)]
        assert shown["Battles"] == len(mine), name
        assert shown["Tie (%)"] == round(100 * ties / len(mine), 2), name
        assert shown["Tie (bothbad) (%)"] == round(100 * both_bad / len(mine), 2), name
    whole = frame.loc["All battles"]
    assert (whole["Battles"], whole["Tie (%)"], whole["Tie (bothbad) (%)"]) == (100, 11.0, 11.0)
    assert frame.loc["Exclude ties", "Tie (%)"] == 0.0


def test_stars_are_exactly_on_models_under_min_votes(board: RatingBoard) -> None:
    starred_somewhere = False
    for name in va.board_names(board):
        for styled in (False, True):
            view = board_view(board, name, style_control=styled)
            frame = va.arena_frame(board, name, styled)
            if view is None:
                assert frame.empty
                continue
            under = {m for m, e in view.models.items() if e.battles < MIN_VOTES}
            assert set(frame.loc[frame[va.STAR] == va.STAR, "Model"]) == under, (name, styled)
            assert set(frame.loc[frame[va.STAR] == "", "Model"]) == set(view.models) - under
            starred_somewhere |= bool(under)
    assert starred_somewhere
    assert (va.arena_frame(board, OVERALL, False)[va.STAR] == "").all()  # 40 votes each
    assert f"fewer than {MIN_VOTES} votes" in va.legend(board, False)


def test_the_table_is_the_views_ranks_and_intervals(board: RatingBoard) -> None:
    frame = va.arena_frame(board, "language: English", False)
    view = board.categories["language: English"]
    assert list(frame.columns) == va.ARENA_COLUMNS
    assert list(frame["Model"]) == sorted(view.models, key=lambda m: -view.models[m].rating)
    for _, row in frame.iterrows():
        entry = view.models[row["Model"]]
        assert row["Rank"] == entry.rank and row["Votes"] == entry.battles
        assert row["Score"] == round(entry.rating, 1)
        assert (
            row["95% CI"]
            == f"+{entry.upper - entry.rating:.1f} / -{entry.rating - entry.lower:.1f}"
        )


def test_rank_changes_are_plain_rank_minus_styled_rank(board: RatingBoard) -> None:
    moved = 0
    for name in va.board_names(board):
        styled = board_view(board, name, style_control=True)
        frame = va.arena_frame(board, name, True)
        if styled is None:
            assert frame.empty and va.RANK_CHANGE in frame.columns
            continue
        plain = board_view(board, name)
        assert plain is not None
        if too_few_votes(styled):  # listed without numbers: no rank, no change
            assert set(frame["95% CI"]) == {TOO_FEW}
            assert frame["Rank"].isna().all() and frame[va.RANK_CHANGE].isna().all()
            continue
        for _, row in frame.iterrows():
            model = row["Model"]
            change = plain.models[model].rank - styled.models[model].rank
            assert row[va.RANK_CHANGE] == change, (name, model)
            assert row["Rank"] == styled.models[model].rank  # the style-controlled ranks shown
            moved += change != 0
    assert moved  # the sample moves some model on some board
    assert va.RANK_CHANGE not in va.arena_frame(board, OVERALL, False).columns
    assert "positive means the model climbs" in va.legend(board, True)


def test_style_coefficients_are_each_twins(board: RatingBoard) -> None:
    frame = va.style_frame(board).set_index("Board")
    assert list(frame.columns) == [*va.STYLE_FEATURES, va.STYLE_NOTE]
    with_twin = without = 0
    for name in va.board_names(board):
        if name in board.skipped_categories:  # not fitted, so no twin either
            continue
        shown = frame.loc[va.label_of(name)]
        twin = board_view(board, name, style_control=True)
        if twin is not None:
            assert twin.style_coefficients is not None
            for feature in va.STYLE_FEATURES:
                assert shown[feature] == round(twin.style_coefficients[feature], 4)
            assert shown[va.STYLE_NOTE] == ""
            with_twin += 1
        else:
            plain = board_view(board, name)
            assert plain is not None
            reason = plain.settings.extra[STYLE_CONTROL_SKIPPED]
            assert reason in shown[va.STYLE_NOTE] and shown[list(va.STYLE_FEATURES)].isna().all()
            without += 1
    assert with_twin and without


def test_a_missing_twin_or_board_is_stated_with_its_reason(board: RatingBoard) -> None:
    assert board_view(board, "ocr", style_control=True) is None
    note = va.missing_note(board, "ocr", True)
    assert note.startswith("OCR: no style-controlled board (style control: feature")
    assert board.categories["ocr"].settings.extra[STYLE_CONTROL_SKIPPED] in note
    assert va.arena_frame(board, "ocr", True).empty
    assert va.missing_note(board, "ocr", False) == "" and len(va.arena_frame(board, "ocr", False))


def test_a_board_not_fitted_shows_why() -> None:
    records = [battle_record(r) for r in read_battle_rows(BATTLES)]
    settings = ArenaSettings(rounds=3, min_votes=MIN_VOTES, languages=("English", "Klingon"))
    board = arena_leaderboard(records, settings)
    skipped = board.skipped_categories["language: Klingon"]
    assert ("Language: Klingon (not fitted)", "language: Klingon") in va.category_choices(board)
    assert va.missing_note(board, "language: Klingon", False) == (
        f"Language: Klingon: not fitted ({skipped})."
    )
    assert va.arena_frame(board, "language: Klingon", False).empty
    ties = va.tie_frame(board).set_index("Board").loc["Language: Klingon"]
    assert ties["Note"] == f"not fitted: {skipped}"
    assert "Boards not fitted: Language: Klingon." in va.board_summary(board)


def test_the_bench_table_has_score_and_win_rate_against_the_anchor(bench: RatingBoard) -> None:
    frame = vbench.bench_frame(bench, OVERALL, False)
    assert list(frame.columns) == [
        *vbench.BENCH_COLUMNS,
        vbench.TOKENS_COLUMN,
        *vbench.TAIL_COLUMNS,
    ]
    assert set(frame["Model"]) == set(REPLIES)
    assert list(frame.loc[frame["Role"] == "anchor", "Model"]) == [ANCHOR]
    tokens = bench.settings.extra["avg_tokens"]
    for _, row in frame.iterrows():
        entry = bench.models[row["Model"]]
        low, high = entry.extra["win_rate_lower"], entry.extra["win_rate_upper"]
        assert row["Win rate (%)"] == round(entry.win_rate, 2)
        assert (
            row["Win rate 95% CI"] == f"+{high - entry.win_rate:.2f} / -{entry.win_rate - low:.2f}"
        )
        assert row["Score"] == round(entry.rating, 1) and row["Rank"] == entry.rank
        assert row["Avg tokens"] == round(tokens[row["Model"]])
    anchor = frame.set_index("Model").loc[ANCHOR]
    assert (anchor["Score"], anchor["Win rate (%)"]) == (1000.0, 50.0)  # arena-hard v0.1, plain
    assert "arena-hard-v0.1" in vbench.bench_description(bench)


def test_avg_tokens_shows_only_when_the_board_has_it(bench: RatingBoard) -> None:
    extra = {k: v for k, v in bench.settings.extra.items() if k != "avg_tokens"}
    plain = replace(bench, settings=replace(bench.settings, extra=extra), style_control=None)
    assert vbench.TOKENS_COLUMN not in vbench.bench_frame(plain, OVERALL, False).columns
    assert vbench.TOKENS_COLUMN in vbench.bench_frame(bench, OVERALL, False).columns
    twin = bench.style_control  # the run writes each view's own averages, the twin's too
    assert (
        twin is not None and twin.settings.extra["avg_tokens"] == bench.settings.extra["avg_tokens"]
    )
    styled = vbench.bench_frame(bench, OVERALL, True).set_index("Model")
    for model, tokens in twin.settings.extra["avg_tokens"].items():
        assert styled.loc[model, vbench.TOKENS_COLUMN] == round(tokens)


def test_the_bench_states_a_missing_style_twin(bench: RatingBoard) -> None:
    assert vbench.missing_note(bench, OVERALL, True) == ""  # the run asked for style control
    styled = vbench.bench_frame(bench, OVERALL, True)
    assert list(styled.set_index("Model").loc[ANCHOR, ["Score", "Role"]]) == [1114.0, "anchor"]
    reason = "style control: feature 'headers' is the same for every battle"
    extra = {**bench.settings.extra, STYLE_CONTROL_SKIPPED: reason}
    without = replace(bench, style_control=None, settings=replace(bench.settings, extra=extra))
    assert vbench.missing_note(without, OVERALL, True) == (
        f"All prompts: no style-controlled board ({reason})."
    )
    assert vbench.bench_frame(without, OVERALL, True).empty
    never = replace(bench, style_control=None)
    assert "did not ask for one" in vbench.missing_note(never, OVERALL, True)


def test_agreement_renders_every_field_of_the_report(
    bench: RatingBoard, board: RatingBoard
) -> None:
    frame, note = vbench.agreement_frame(bench, board)
    fields = [f.name for f in dataclasses.fields(agreement.AgreementReport)]
    assert list(frame.columns) == ["Measure", "plain", "style control"] and note == ""
    assert list(frame["Measure"]) == fields
    shown = frame.set_index("Measure")
    for label, styled in vbench.AGREEMENT_VIEWS:
        x = board_view(bench, OVERALL, style_control=styled)
        y = board_view(board, OVERALL, style_control=styled)
        assert x is not None and y is not None
        report = agreement.compare_leaderboards(vbench.board_points(x), vbench.board_points(y))
        for name, value in dataclasses.asdict(report).items():
            if isinstance(value, tuple):
                assert shown.loc[name, label] == f"{len(value)}: " + ", ".join(value)
                assert set(value) == set(REPLIES)  # the five models both boards rate
            else:
                assert shown.loc[name, label] == f"{value:.4g}"


@dataclasses.dataclass(frozen=True)
class _Extended:
    spearman: float
    a_new_measure: float
    models: tuple[str, ...]


def test_a_new_field_of_the_report_appears_without_code_changes(
    bench: RatingBoard, board: RatingBoard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        agreement, "compare_leaderboards", lambda x, y: _Extended(0.5, float("nan"), tuple(x))
    )
    frame, _ = vbench.agreement_frame(bench, board)
    assert list(frame["Measure"]) == ["spearman", "a_new_measure", "models"]
    assert list(frame.set_index("Measure").loc["a_new_measure"]) == ["n/a", "n/a"]


def test_too_few_shared_models_is_said(board: RatingBoard) -> None:
    alone = RatingBoard(
        {m: e for m, e in board.models.items() if m == ANCHOR}, BoardSettings(reference="x")
    )
    frame, note = vbench.agreement_frame(alone, board)
    assert frame.empty
    assert f"share 1 model ({ANCHOR}); agreement needs at least 2" in note


@pytest.fixture(scope="module")
def battles(va_store: ResultStore) -> list[dict]:
    record = va_store.boards[ARENA]
    return vbt.battle_records(read_config_rows(va_store.location, record.folder, "details"))


def test_the_battle_list_follows_the_board_and_the_model(
    battles: list[dict], rows: list[BattleRow]
) -> None:
    assert len(battles) == len(rows) == 100
    listed, note = vbt.battle_choices(battles, "homework")
    homework = [r.question_id for r in rows if r.categories["homework"]]
    assert [qid for _, qid in listed] == homework and note.startswith(f"{len(homework)} battles")
    listed, _ = vbt.battle_choices(battles, "multiturn", "pixelsage-7b")
    expected = [r for r in rows if r.turn > 1 and "pixelsage-7b" in (r.model_a, r.model_b)]
    assert [qid for _, qid in listed] == [r.question_id for r in expected]
    assert listed[0][0] == "va-battle-005 · orchid-vision-13b vs pixelsage-7b · model_a"


def test_a_battle_shows_both_conversations_turn_by_turn(
    battles: list[dict], rows: list[BattleRow]
) -> None:
    record = vbt.find_record(battles, "va-battle-005")
    assert record is not None
    row = next(r for r in rows if r.question_id == "va-battle-005")
    shown = vbt.battle_view(record, BATTLES, vbt.boards_of(record, ["homework", "ocr"]))
    for side, turns, model in (
        ("a", row.conversation_a, row.model_a),
        ("b", row.conversation_b, row.model_b),
    ):
        text = getattr(shown, f"side_{side}")
        for k, (question, answer) in enumerate(zip(turns[::2], turns[1::2], strict=True), 1):
            assert f"[turn {k} of 2: user]\n{question.text}" in text
            assert f"[turn {k} of 2: model {side.upper()} ({model})]\n{answer.text}" in text
    assert "vote: model_a (Model A is better)" in shown.summary
    assert "language: English    turns: 2" in shown.summary
    assert "category flags: homework, multi-turn" in shown.summary
    assert "on boards: Homework" in shown.summary
    assert len(shown.images) == len(row.images) == 1 and shown.note == "from battle"


def test_a_conversation_is_text_whatever_it_holds(battles: list[dict], tmp_path: Path) -> None:
    data = write_battle_data(tmp_path / "battle")
    record = vbt.find_record(battles, HOSTILE_BATTLE)
    assert record is not None
    shown = vbt.battle_view(record, data)
    assert shown.side_a.count(PAYLOAD) == 2 and shown.side_b.count(PAYLOAD) == 2
    second = shown.side_a.split("[turn 2 of 2: user]\n", 1)[1]
    assert second.split("\n\n[turn", 1)[0].endswith(PAYLOAD)  # the question, as typed
    assert "<script>" in shown.side_a and "<img src=x onerror=" in shown.side_b  # text, not markup


def test_json_lines_data_is_read_once_for_every_battle_shown(
    battles: list[dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON-lines layout (images as files beside it): the conversations and images show as
    from the parquet sample, and browsing battle after battle reads the file once."""
    from vlmscope.tracks.visionarena import row_files

    data = tmp_path / "battle-jsonl"
    (data / "images").mkdir(parents=True)
    lines = []
    for row in pq.read_table(next(BATTLES.glob("data/*.parquet"))).to_pylist():
        for number, image in enumerate(row["images"]):
            name = f"{row['question_id']}-{number}.png"
            (data / "images" / name).write_bytes(image["bytes"])
            image.clear()
            image["name"] = name
        row["images"] = [image["name"] for image in row["images"]]
        lines.append(json.dumps(row))
    (data / "battles.jsonl").write_text("\n".join(lines) + "\n")
    reads = []
    read_records = row_files.records
    monkeypatch.setattr(row_files, "records", lambda *a: reads.append(a) or read_records(*a))
    shown = {}
    for question_id in ("va-battle-005", HOSTILE_BATTLE, "va-battle-005"):
        record = vbt.find_record(battles, question_id)
        assert record is not None
        shown[question_id] = vbt.battle_view(record, data), vbt.battle_view(record, BATTLES)
    assert len(reads) == 1
    for from_json, from_parquet in shown.values():
        assert from_json.side_a == from_parquet.side_a and from_json.side_b == from_parquet.side_b
        assert from_json.images == from_parquet.images and from_json.images
        assert from_json.note == "from battle-jsonl"


def test_without_the_battle_in_the_data_the_vote_still_shows(
    battles: list[dict], tmp_path: Path
) -> None:
    record = vbt.find_record(battles, "va-battle-005")
    assert record is not None
    moved = dict(record, question_id="va-battle-999")
    shown = vbt.battle_view(moved, BATTLES)
    assert "vote: model_a" in shown.summary and shown.side_a == shown.side_b == ""
    assert "va-battle-999 is not in the Battle data (battle)" in shown.note
    assert vbt.BATTLE_DATA_ENV in shown.note
    swapped = dict(record, model_a=record["model_b"], model_b=record["model_a"])
    assert (
        "not the board's pixelsage-7b vs orchid-vision-13b"
        in vbt.battle_view(swapped, BATTLES).note
    )
    assert "no Battle data folder" in vbt.battle_view(record, None).note
    assert vbt.battle_data_dir({vbt.BATTLE_DATA_ENV: str(tmp_path)}) == tmp_path
    assert vbt.battle_data_dir({}) == BATTLES


def test_a_bench_not_on_the_elo_scale_says_so(bench: RatingBoard, board: RatingBoard) -> None:
    v2 = replace(bench, settings=replace(bench.settings, reference="arena-hard-v2"))
    frame, note = vbench.agreement_frame(v2, board)
    assert len(frame) and "the win rate against the anchor in %, not Elo points" in note
    assert "the win rate against the anchor in %" in vbench.bench_description(v2)


def test_a_record_without_the_fields_of_a_board_is_not_listed_on_it(battles: list[dict]) -> None:
    bare = [{k: v for k, v in r.items() if k != "category_tag"} for r in battles]
    listed, note = vbt.battle_choices(bare, "ocr")
    anonymous = sum(r.get("anony", True) for r in bare)
    assert listed == [] and note == (
        f"0 battles on the board OCR; {anonymous} battles carry no label for it and are on no "
        "such board."
    )
    assert vbt.boards_of(bare[0], ["ocr", "language: English"]) == ["language: English"]


def _markdown(demo, elem_id: str) -> str:  # noqa: ANN001
    (block,) = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    return str(block.value)


def test_without_a_bench_board_the_page_says_so(
    va_store: ResultStore,
    space_app,
    tmp_path: Path,  # noqa: ANN001
) -> None:
    app, pages, _ = space_app
    only = tmp_path / "results" / "_boards" / ARENA
    shutil.copytree(va_store.boards[ARENA].folder, only)
    store = ResultStore(ResultsLocation.local(tmp_path / "results"))
    assert list(store.boards) == [ARENA] and pages.page_for(store, ARENA) is pages.visionarena_tab
    demo = app.build_app(store)
    assert "No VisionArena\\-Bench board in these results" in _markdown(
        demo, "visionarena-agreement-note"
    )
    assert vbench.agreement_missing(store.boards[ARENA].board, None).startswith(
        "No VisionArena-Bench"
    )
    assert "human-vote board" in vbench.agreement_missing(None, va_store.boards[BENCH].board)
