"""``tandem`` in a pseudo-terminal, typed at as a person would: wait for a prompt, type a line, read what came.

Standard input, output and error are the terminal's, so prompts, echoes and errors arrive in the order a
person sees them (``\\r\\n`` read as ``\\n``). Colour is off (``NO_COLOR``) so the text can be compared.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[2]
CTRL_D = "\x04"


def console_env(db: Path, **extra: str) -> dict[str, str]:
    """The environment of a run on the demo toolset in ``db``, with no Slack or Tandem setting of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "NO_COLOR"))}
    return {**env, "TANDEM_DB": str(db), "TERM": "xterm", "NO_COLOR": "1", "PYTHONPATH": str(ROOT), **extra}


class Console:
    def __init__(self, env: dict[str, str], *args: str) -> None:
        main, child = os.openpty()
        self._main = main
        self._text = ""
        self._read = 0  # how much of the text expect() has gone past
        self._changed = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, stdin=child, stdout=child, stderr=child
        )
        os.close(child)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._main, 4096)
            except OSError:  # the process closed its end
                chunk = b""
            with self._changed:
                if not chunk:
                    self._changed.notify_all()
                    return
                self._text += chunk.decode(errors="replace").replace("\r\n", "\n")
                self._changed.notify_all()

    def expect(self, text: str, within: float = 30) -> str:
        """What was shown from the last expected text up to and including ``text`` (which it waits for)."""
        deadline = time.monotonic() + within
        with self._changed:
            while (at := self._text.find(text, self._read)) < 0:
                left = deadline - time.monotonic()
                if left <= 0 or (not self._reader.is_alive() and text not in self._text[self._read :]):
                    raise AssertionError(f"{text!r} not shown; after the last expected text came:\n{self.rest}")
                self._changed.wait(min(left, 0.5))
            end = at + len(text)
            seen, self._read = self._text[self._read : end], end
            return seen

    @property
    def rest(self) -> str:
        """What was shown after the last expected text."""
        return self._text[self._read :]

    def type(self, line: str) -> None:
        """Type ``line`` and Enter."""
        os.write(self._main, (line + "\n").encode())

    def end_input(self) -> None:
        """Ctrl-D at the start of a line: the end of input."""
        os.write(self._main, CTRL_D.encode())

    def exit_code(self, within: float = 30) -> int:
        """The process's exit code, once it ended and all it showed was read."""
        code = self.proc.wait(timeout=within)
        self._reader.join(timeout=within)
        return code

    def __enter__(self) -> Console:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        os.close(self._main)
