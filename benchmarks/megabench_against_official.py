"""`megabench_scoring.py --official PATH`: `vlmscope megabench score` against the official
evaluator (`megabench_official.py`, from a MEGA-Bench checkout at PATH), whole processes.

Workload: the golden pipeline example's rule tasks (`tests/golden/megabench_aggregation/
pipeline_example/inputs`), every task copied `--replicas` times (241: 6,507 responses, the
program_judge task included), responses verbatim. Each side runs in a fresh interpreter, A B A B
(`--pairs` pairs; medians of wall and CPU seconds, children included), on the same files; then
every query's field and query scores are compared. Five models: `vlmscope megabench score` over
five copies of the file in one process, against five official runs (one process per model, as
the official evaluator scores one model at a time: five times its median here). The copies hold
the same responses, so our memo caches (parsed LaTeX, numbers) serve models 2-5 more than
different answers would; the first model's share is printed.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ab_pairs import process_pairs

REPO = Path(__file__).resolve().parent.parent
INPUTS = REPO / "tests" / "golden" / "megabench_aggregation" / "pipeline_example" / "inputs"
OFFICIAL_DRIVER = Path(__file__).resolve().parent / "megabench_official.py"
GOAL_RATIO = 10.0
FIVE_MODELS_GOAL_RATIO = 15.0


def replicated_workload(replicas: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pipeline example's rule tasks, each copied `replicas` times as `<task>__rep<r>`."""
    responses = json.loads((INPUTS / "all_query_responses.json").read_text(encoding="utf-8"))
    samples = {
        entry["task_name"]: entry["task_samples"]
        for entry in json.loads((INPUTS / "task_samples.json").read_text(encoding="utf-8"))
    }
    out_responses, out_samples = [], []
    for replica in range(replicas):
        for task in responses:
            name = f"{task['task_name']}__rep{replica:04d}"
            copied = copy.deepcopy(task)
            copied["task_name"] = name
            out_responses.append(copied)
            out_samples.append({"task_name": name, "task_samples": samples[task["task_name"]]})
    return out_responses, out_samples


def nltk_data(folder: Path, wordnet_dir: Path) -> Path:
    """An NLTK data folder for the official code: WordNet 3.0 from the system's files (plus the
    `lexnames` list NLTK's reader wants) and empty Punkt parameters (the untrained splitter,
    as our sentence splitter; `vlmscope.metrics.megabench.lexicon` says why)."""
    corpus = folder / "corpora" / "wordnet"
    corpus.mkdir(parents=True, exist_ok=True)
    for file in wordnet_dir.iterdir():
        if file.is_file():
            shutil.copy(file, corpus / file.name)  # copies: NLTK refuses links out of its root
    lexnames = ["adj.all 3", "adj.pert 3", "adv.all 4"]
    lexnames += [f"noun.{name} 1" for name in _NOUN_FILES] + [f"verb.{n} 2" for n in _VERB_FILES]
    lexnames.append("adj.ppl 3")
    (corpus / "lexnames").write_text(
        "".join(f"{i:02d}\t{entry.replace(' ', chr(9))}\n" for i, entry in enumerate(lexnames))
    )
    punkt = folder / "tokenizers" / "punkt_tab" / "english"
    punkt.mkdir(parents=True, exist_ok=True)
    for name in ("abbrev_types.txt", "collocations.tab", "sent_starters.txt", "ortho_context.tab"):
        (punkt / name).write_text("")
    return folder


_NOUN_FILES = [
    "Tops",
    "act",
    "animal",
    "artifact",
    "attribute",
    "body",
    "cognition",
    "communication",
    "event",
    "feeling",
    "food",
    "group",
    "location",
    "motive",
    "object",
    "person",
    "phenomenon",
    "plant",
    "possession",
    "process",
    "quantity",
    "relation",
    "shape",
    "state",
    "substance",
    "time",
]
_VERB_FILES = [
    "body",
    "change",
    "cognition",
    "communication",
    "competition",
    "consumption",
    "contact",
    "creation",
    "emotion",
    "motion",
    "perception",
    "possession",
    "social",
    "stative",
    "weather",
]


def timed_process(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one run to the end."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = errors.decode(errors="replace")[-3000:]
        raise RuntimeError(f"`{' '.join(command)}` failed ({process.returncode}):\n{tail}")
    return wall, usage.ru_utime + usage.ru_stime


def _number(value: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _same(left: Any, right: Any) -> bool:
    left, right = _number(left), _number(right)
    if isinstance(left, float) and isinstance(right, float):
        return left == right or abs(left - right) <= 1e-9
    return bool(left == right)


def differing_scores(ours: Path, official: Path) -> tuple[int, list[str]]:
    """(queries compared, those whose field or query scores differ) between two
    data_with_scores.json files, tasks matched by name and queries by query_idx."""
    mine = {
        task["task_name"]: {q["query_idx"]: q["scores"] for q in task["query_response"]}
        for task in json.loads(ours.read_text(encoding="utf-8"))["data"]
    }
    compared, differ = 0, []
    for task in json.loads(official.read_text(encoding="utf-8"))["data"]:
        for query in task["query_response"]:
            compared += 1
            theirs = query["scores"]
            got = mine.get(task["task_name"], {}).get(query["query_idx"])
            fields_equal = got is not None and set(got["field"]) == set(theirs["field"])
            if not (
                fields_equal
                and all(_same(got["field"][k], v) for k, v in theirs["field"].items())  # type: ignore[index]
                and _same(got["query"], theirs["query"])  # type: ignore[index]
            ):
                differ.append(f"{task['task_name']}#{query['query_idx']}")
    return compared, differ


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} CPUs"


def against_official(
    official: Path, replicas: int, pairs: int, models: int, nltk_dir: Path | None
) -> int:
    """Print the whole-process figures against the official evaluator; 1 if a score differs."""
    from vlmscope.metrics.megabench.lexicon import wordnet_dir

    with tempfile.TemporaryDirectory(prefix="megabench-official-") as scratch:
        root = Path(scratch)
        responses, samples = replicated_workload(replicas)
        responses_file, samples_file = root / "all_query_responses.json", root / "samples.json"
        responses_file.write_text(json.dumps(responses), encoding="utf-8")
        samples_file.write_text(json.dumps(samples), encoding="utf-8")
        n_queries = sum(len(task["query_response"]) for task in responses)
        env = dict(os.environ)
        env["NLTK_DATA"] = str(nltk_dir or nltk_data(root / "nltk_data", wordnet_dir()))
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
        theirs_command = [
            sys.executable,
            str(OFFICIAL_DRIVER),
            str(official),
            str(responses_file),
            str(samples_file),
            str(root / "official"),
        ]
        ours_command = [sys.executable, "-m", "vlmscope", "megabench", "score"]
        ours_tail = ["--samples", str(samples_file), "--out"]
        one_model = [*ours_command, str(responses_file), *ours_tail, str(root / "ours")]
        print(f"{n_queries} responses in {len(responses)} tasks; {_load()}", flush=True)
        rounds = process_pairs(
            pairs,
            "official",
            lambda: timed_process(theirs_command, env, root),
            lambda: timed_process(one_model, env, REPO),
            _load,
        )
        compared, differ = differing_scores(
            root / "ours" / "data_with_scores.json", root / "official" / "data_with_scores.json"
        )
        model_files = []
        for index in range(models):
            file = root / "models" / f"model-{index + 1}" / "all_query_responses.json"
            file.parent.mkdir(parents=True)
            shutil.copy(responses_file, file)
            model_files.append(str(file))
        several = [*ours_command, *model_files, *ours_tail, str(root / "several")]
        several_wall, several_cpu = timed_process(several, env, REPO)

    official_wall = statistics.median(r[0] for r in rounds)
    ours_wall = statistics.median(r[2] for r in rounds)
    ratio = statistics.median(r[0] / r[2] for r in rounds)
    print(
        f"official EvaluationProcessor: median {official_wall:.2f} s "
        f"(cpu {statistics.median(r[1] for r in rounds):.2f} s)"
    )
    print(
        f"vlmscope megabench score    : median {ours_wall:.2f} s "
        f"(cpu {statistics.median(r[3] for r in rounds):.2f} s)"
    )
    print(
        f"speed-up (median of pair ratios): {ratio:.1f}x (goal >= {GOAL_RATIO:.0f}x: "
        f"{'met' if ratio >= GOAL_RATIO else 'not met'})"
    )
    print(
        f"scores: {len(differ)} of {compared} queries differ"
        + (f": {differ[:5]}" if differ else "")
    )
    five_ratio = models * official_wall / several_wall
    print(
        f"{models} models: one vlmscope process {several_wall:.2f} s (cpu {several_cpu:.2f} s) vs "
        f"{models} official runs ({models} x {official_wall:.2f} s): {five_ratio:.1f}x "
        f"(goal >= {FIVE_MODELS_GOAL_RATIO:.0f}x: "
        f"{'met' if five_ratio >= FIVE_MODELS_GOAL_RATIO else 'not met'}); "
        f"the first model alone took {ours_wall:.2f} s of it as its own process"
    )
    return 1 if differ else 0
