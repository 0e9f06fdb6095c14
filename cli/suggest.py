"""An argument parser that names what was mistyped and what was probably meant: ``tandem rn`` (did you mean
``run``?), ``--aprove`` (did you mean ``--approve``?), before any other complaint about the same command line."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from typing import Any


def guess(written: str, known: Iterable[str]) -> str:
    """`` (did you mean run?)`` when one of ``known`` is close to ``written``; else empty."""
    close = difflib.get_close_matches(written, list(known), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


class SuggestingParser(argparse.ArgumentParser):
    """Errors exit 2 as argparse's do, and name the near miss of a choice or an option."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            names = [str(c) for c in choices]
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{guess(str(value), names)}; choose from {', '.join(names)}"
            )

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None and self._subparsers is None:  # a command's own options (the top level has commands)
            for written in self._unknown_options(args):
                self.error(f"unrecognized option {written}{guess(written, self._option_string_actions)}")
        return super().parse_known_args(args, namespace)

    def _unknown_options(self, args: Sequence[str]) -> list[str]:
        """The ``--options`` in ``args`` that match no option of this parser, not even as an abbreviation."""
        unknown = []
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0]
            if not name.startswith("--") or " " in arg:  # a value, as argparse reads it
                continue
            if not any(option.startswith(name) for option in self._option_string_actions):
                unknown.append(name)
        return unknown
