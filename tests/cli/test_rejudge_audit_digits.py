"""The re-judge audit writes a board's ratings as the run's table printed just above it does,
and as the Space and `vlmscope compare` show them: the same decimals (`shown_numbers`)."""

from __future__ import annotations

from vlmscope.cli.rejudge_audit import format_audit
from vlmscope.runner.table import rating_text


def test_the_audit_writes_ratings_as_the_run_table_does() -> None:
    old, new = (1187.07, 1027.25, 1306.75), (1128.24, 959.41, 1283.84)
    audit = {
        "kind": "board",
        "agreement": {"spearman": 1.0, "kendall_tau": 1.0},
        "pinned": None,
        "models": [
            {
                "model": "m",
                "old_rank": 1,
                "new_rank": 1,
                "rank_change": 0,
                "old": old,
                "new": new,
                "interval_moved": 68.44,
            }
        ],
        "moved_most": ["m"],
    }
    printed = format_audit({"probench": audit}, "judge-a", "judge-b")
    assert rating_text(new) == "rating=1128.2 (95% 959.4-1283.8)"
    assert "1187.1 [1027.2, 1306.8]" in printed and "1128.2 [959.4, 1283.8]" in printed
    assert printed.splitlines()[-2].split()[-1] == "68.4"  # how far the interval moved
