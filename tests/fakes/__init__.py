"""Test doubles: a scripted chat model and a local OpenAI-compatible server."""

from tests.fakes.scripted import Answer, ScriptedModel

__all__ = ["Answer", "ScriptedModel"]
