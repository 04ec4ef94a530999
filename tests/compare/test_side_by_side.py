"""Samples side by side: paired by id, each model's reading of an item, the filters, and links
that only name what the results hold."""

from __future__ import annotations

from urllib.parse import parse_qsl

from tests.compare.conftest import COIN, ORACLE, QUICK, TWIN
from vlmscope.leaderboard.compare import side_by_side as sbs
from vlmscope.leaderboard.result_store import ResultStore


def _samples(store: ResultStore, track: str, kind: str, *models: str) -> list[sbs.SideBySide]:
    return sbs.side_by_side(kind, {m: store.details(track, m) for m in models})


def test_megabench_items_read_right_on_full_marks(compare_store: ResultStore) -> None:
    samples = _samples(compare_store, "megabench", "megabench", ORACLE, COIN)
    assert len(samples) == 16 and all(s.answers[0].model == ORACLE for s in samples)
    a_only = sbs.pick(samples, a=ORACLE, b=COIN, split=sbs.A_ONLY)
    assert len(a_only) == 14  # every Core query; the two Open ones have no judge: 0 for both
    assert len(sbs.pick(samples, a=ORACLE, b=COIN, split=sbs.BOTH_WRONG)) == 2
    assert sbs.pick(samples, a=ORACLE, b=COIN, split=sbs.B_ONLY) == []
    tasks, languages = sbs.choices(samples)
    assert tasks[0] == sbs.ANY and len(tasks) == 9 and languages == [sbs.ANY]
    one_task = sbs.pick(samples, a=ORACLE, b=COIN, task=tasks[1])
    assert len(one_task) == 2 and {s.task for s in one_task} == {tasks[1]}
    assert "query score 1.0" in samples[0].answers[0].scored
    assert samples[0].label().startswith(f"{samples[0].sample_id}  [{ORACLE}: right, {COIN}: wrong")


def test_simplevqa_and_judged_readings(compare_store: ResultStore) -> None:
    graded = _samples(compare_store, "simplevqa", "factuality", ORACLE, COIN, TWIN)
    assert {s.verdict_of(ORACLE) for s in graded} == {"right"}
    assert {s.verdict_of(COIN) for s in graded} == {"wrong"}
    english = sbs.pick(graded, a=ORACLE, b=COIN, language="EN")
    assert english and all(s.language == "EN" for s in english)
    judged = _samples(compare_store, "visionarena_bench", "judged", ORACLE, TWIN)
    for sample in judged:  # the same answers, the same verdicts
        assert sample.answers[0].scored == sample.answers[1].scored
        assert sample.verdict_of(ORACLE) == sample.verdict_of(TWIN)
        assert sample.answers[0].scored.startswith("vs sample-anchor: ")


def test_items_one_model_lacks_are_not_shown(compare_store: ResultStore) -> None:
    samples = _samples(compare_store, "megabench", "megabench", ORACLE, QUICK)
    assert len(samples) == 8 and all(s.sample_id.endswith("/0") for s in samples)


def test_links_name_only_what_the_results_hold() -> None:
    query = sbs.link_query("megabench", ["a", "b<script>"], "task/0")
    params = dict(parse_qsl(query.removeprefix("?")))
    assert params == {"compare": "megabench", "models": "a,b<script>", "sample": "task/0"}
    known = {"megabench": ["a", "b<script>", "c", "d", "e"]}
    assert sbs.parse_link(params, known) == sbs.Link("megabench", ("a", "b<script>"), "task/0")
    assert sbs.parse_link({**params, "compare": "../etc"}, known) is None
    assert sbs.parse_link({**params, "models": "a,zz"}, known) is None
    many = sbs.parse_link({**params, "models": "a,a,b<script>,c,d,e"}, known)
    assert many is not None and many.models == ("a", "b<script>", "c", "d")
    assert sbs.parse_link({}, known) is None
