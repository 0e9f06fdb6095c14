"""A mistyped command, option or choice exits 2 naming what was typed and what was probably meant."""

from __future__ import annotations

import pytest

from cli.main import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["rn", "restart payments"], "invalid choice: 'rn' (did you mean `run`?)"),
        (
            ["answer", "r1", "--aprove"],
            "tandem answer: error: unrecognized option --aprove (did you mean `--approve`?)",
        ),
        (["answer", "r1", "--approve", "--reviw", "x"], "unrecognized option --reviw (did you mean `--review`?)"),
        (["runs", "--stauts", "done"], "tandem runs: error: unrecognized option --stauts (did you mean `--status`?)"),
        (["runs", "--status", "dnoe"], "invalid choice: 'dnoe' (did you mean `done`?)"),
    ],
)
def test_mistyped_command_line_exits_2_naming_the_word_meant(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)

    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert said in err, err
    assert "is required" not in err, "the mistyped word is named, not a complaint it caused"


@pytest.mark.parametrize("argv", [["xyzzy"], ["runs", "--frobnicate"]])
def test_mistyped_word_like_nothing_known_gets_no_guess(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)

    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and argv[-1] in err


def test_abbreviated_option_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["runs", "--stat", "dnoe"])  # an unambiguous prefix of --status is --status, as argparse allows

    assert exited.value.code == 2
    assert "argument --status: invalid choice: 'dnoe'" in capsys.readouterr().err
