"""A chat model that answers from a script, for unit tests of the brain and the runtime.

    model = ScriptedModel('{"steps": [...]}', lambda request: "...", LLMError("down"))

Each answer is a string, a callable of the :class:`LLMRequest` returning a string,
or an exception to raise. Every request is recorded. Asking for more answers than
were scripted fails the test with the request that was not expected.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import pytest

from agent.ports import LLMRequest

__all__ = ["Answer", "ScriptedModel"]

Answer = str | Callable[[LLMRequest], str] | BaseException


class ScriptedModel:
    def __init__(self, *answers: Answer, name: str = "scripted") -> None:
        self.name = name
        self.requests: list[LLMRequest] = []
        self._answers: deque[Answer] = deque(answers)

    def add(self, *answers: Answer) -> None:
        self._answers.extend(answers)

    @property
    def remaining(self) -> int:
        return len(self._answers)

    @property
    def purposes(self) -> list[str]:
        return [r.purpose for r in self.requests]

    async def complete(self, request: LLMRequest) -> str:
        self.requests.append(request)
        if not self._answers:
            last = request.messages[-1]["content"] if request.messages else ""
            pytest.fail(
                f"ScriptedModel ran out of answers: request #{len(self.requests)} ({request.purpose}) "
                f"was not scripted. Its last message:\n{last[:500]}",
                pytrace=False,
            )
        answer = self._answers.popleft()
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(request)
        return answer
