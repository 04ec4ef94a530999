"""`--limit` and `--budget` are refused by the flag that gave them, not as a field of the config
file the user never wrote that way."""

from __future__ import annotations

import pytest

from vlmscope.cli import build_parser, main


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--limit", "0", "expected a whole number above 0, got '0'"),
        ("--limit", "-3", "expected a whole number above 0, got '-3'"),
        ("--limit", "1.5", "expected a whole number above 0, got '1.5'"),
        ("--budget", "0", "expected a number above 0, got '0'"),
        ("--budget", "-1", "expected a number above 0, got '-1'"),
        ("--budget", "nan", "expected a number above 0, got 'nan'"),
        ("--budget", "inf", "expected a number above 0, got 'inf'"),
    ],
)
def test_a_number_below_one_is_refused_by_its_flag(
    flag: str, value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["run", "--config", "configs/demo.yaml", flag, value, "--dry-run"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: {said}" in err and "demo.yaml" not in err


def test_good_numbers_pass_as_numbers() -> None:
    argv = ["run", "--config", "configs/demo.yaml", "--limit", "2", "--budget", "0.5"]
    args = build_parser(argv).parse_args(argv)
    assert (args.limit, args.budget) == (2, 0.5)
    argv = ["demo", "--limit", "1"]
    assert build_parser(argv).parse_args(argv).limit == 1
