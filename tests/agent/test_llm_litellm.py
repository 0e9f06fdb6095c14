"""The real LiteLLMModel -> litellm -> HTTP -> a fake OpenAI server on 127.0.0.1. Nothing leaves the machine."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent.brain import LLMBrain
from agent.errors import LLMError
from agent.llm import LiteLLMModel, key_env_var
from agent.models import Risk, Step
from agent.ports import ClassifyContext, LLMRequest
from agent.tools import load_tools
from tests.fakes.openai_server import FakeOpenAI, serve_openai

MODEL = "openai/test-model"
LOCAL_HOSTS = {"127.0.0.1", "::1", "localhost"}
REQUEST = LLMRequest(purpose="classify", messages=[{"role": "user", "content": "lgtm"}])


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection or lookup that is not loopback fails the test loudly."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOCAL_HOSTS:
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOCAL_HOSTS and host is not None:
            raise OSError(f"test tried to resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with serve_openai() as fake:
        yield fake
    assert fake.unscripted == 0, "the model sent more requests than the test scripted"


@pytest.fixture
def model(server: FakeOpenAI) -> Callable[..., LiteLLMModel]:
    def make(**kw: Any) -> LiteLLMModel:
        kw.setdefault("timeout", 5)
        kw.setdefault("backoff", 0)
        return LiteLLMModel(MODEL, api_base=server.base_url, **kw)

    return make


async def test_litellm_plan_end_to_end_through_the_brain(
    server: FakeOpenAI, model: Callable[..., LiteLLMModel]
) -> None:
    plan = {"steps": [{"tool": "restart_service", "params": {"service": "payments"}, "reason": "asked"}]}
    server.reply("```json\n" + json.dumps(plan) + "\n```")
    tools = load_tools(["demo.tools"])

    steps = await LLMBrain(model()).plan("restart payments", tools, feedback=[], rejected=[], completed=[], max_steps=5)

    assert [(s.tool, s.params, s.reason) for s in steps] == [("restart_service", {"service": "payments"}, "asked")]
    sent = server.requests[0]
    assert server.paths == ["/v1/chat/completions"]
    assert sent["model"] == "test-model"
    assert sent["temperature"] == 0
    assert sent["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert "restart_service" in sent["messages"][1]["content"]


async def test_litellm_repair_round_goes_over_http(server: FakeOpenAI, model: Callable[..., LiteLLMModel]) -> None:
    server.reply("no json here", '{"intent": "replan", "confidence": 0.9}')

    reading = await LLMBrain(model()).classify("hmm, not like that", ClassifyContext(task="t", anchor="after_plan"))

    assert reading.intent == "replan"
    assert [m["role"] for m in server.requests[1]["messages"]][-2:] == ["assistant", "user"]
    assert server.requests[1]["response_format"]["type"] == "json_schema"


GATE = ClassifyContext(
    task="scale payments",
    anchor="before_risky_step",
    step=1,
    steps=[Step(number=1, tool="scale_service", params={"service": "payments", "replicas": 3}, risk=Risk.WRITE)],
)


async def test_litellm_classify_asks_for_the_schema_with_intent_enum(
    server: FakeOpenAI, model: Callable[..., LiteLLMModel]
) -> None:
    server.reply('{"intent": "retry_step", "target_step": 1, "reason": "r", "suggested_fix": null}')

    reading = await LLMBrain(model()).classify("that is not what I meant", GATE)

    assert (reading.intent, reading.target_step) == ("retry_step", 1)
    asked = server.requests[0]["response_format"]
    assert asked["type"] == "json_schema"
    schema = asked["json_schema"]["schema"]
    # at a gate there is no output to rework: the model is held to the readings possible there
    assert schema["properties"]["intent"]["enum"] == ["approve", "cancel", "replan", "retry_step", "question"]
    assert "At this anchor: Nothing has run yet" in server.requests[0]["messages"][-1]["content"]


async def test_litellm_provider_without_schema_falls_back_to_json_mode() -> None:
    async with serve_openai(schemas=False) as fake:
        fake.reply('{"intent": "retry_step", "target_step": 1}', '{"intent": "replan"}')
        llm = LiteLLMModel(MODEL, api_base=fake.base_url, timeout=5, backoff=0)
        brain = LLMBrain(llm)

        first = await brain.classify("that is not what I meant", GATE)
        second = await brain.classify("hmm, not like that", ClassifyContext(task="t", anchor="after_plan"))

    formats = [r["response_format"]["type"] for r in fake.requests]
    assert formats == ["json_schema", "json_object", "json_object"]  # refused once, then JSON mode only
    assert (first.intent, first.target_step, second.intent) == ("retry_step", 1, "replan")
    assert fake.unscripted == 0


async def test_litellm_offline_certain_reading_sends_no_request(
    server: FakeOpenAI, model: Callable[..., LiteLLMModel]
) -> None:
    reading = await LLMBrain(model()).classify("replicas should be 5, not 3", GATE)

    assert (reading.intent, reading.target_step, reading.suggested_fix) == ("retry_step", 1, "5")
    assert server.requests == []


@pytest.mark.parametrize("status", [500, 503, 429])
async def test_litellm_provider_error_then_success_is_retried(
    server: FakeOpenAI, model: Callable[..., LiteLLMModel], status: int
) -> None:
    server.fail(status)
    server.reply('{"intent": "approve"}')

    answer = await model(retries=2).complete(REQUEST)

    assert answer == '{"intent": "approve"}'
    assert len(server.requests) == 2


async def test_litellm_exhausted_retries_raise_llm_error_naming_the_model(
    server: FakeOpenAI, model: Callable[..., LiteLLMModel]
) -> None:
    server.fail(500, times=3, message="upstream exploded")

    with pytest.raises(LLMError, match=r"The model 'openai/test-model' .* after 3 attempts") as caught:
        await model(retries=2).complete(REQUEST)

    message = str(caught.value)
    assert "upstream exploded" in message
    assert "TANDEM_MODEL" in message and "TANDEM_LLM_API_BASE" in message and "OPENAI_API_KEY" in message
    assert len(server.requests) == 3


async def test_litellm_auth_error_is_not_retried(server: FakeOpenAI, model: Callable[..., LiteLLMModel]) -> None:
    server.fail(401, message="bad key")

    with pytest.raises(LLMError, match="OPENAI_API_KEY is set and valid"):
        await model(retries=2).complete(REQUEST)
    assert len(server.requests) == 1


async def test_litellm_timeout_raises_llm_error(server: FakeOpenAI, model: Callable[..., LiteLLMModel]) -> None:
    server.reply('{"late": true}', delay=2)

    with pytest.raises(LLMError, match="(?i)time"):
        await model(retries=0, timeout=0.3).complete(REQUEST)


async def test_litellm_unreachable_server_raises_llm_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = LiteLLMModel(MODEL, api_base=f"http://127.0.0.1:{port}/v1", timeout=2, retries=1, backoff=0)

    with pytest.raises(LLMError, match=f"at http://127.0.0.1:{port}/v1 failed .* after 2 attempts"):
        await model.complete(REQUEST)


async def test_litellm_empty_content_raises_llm_error(server: FakeOpenAI, model: Callable[..., LiteLLMModel]) -> None:
    server.reply("")

    with pytest.raises(LLMError, match="returned no text"):
        await model().complete(REQUEST)


async def test_fake_server_answers_the_unversioned_path_too(server: FakeOpenAI) -> None:
    import aiohttp

    server.reply("hi")
    async with aiohttp.ClientSession() as session:
        url = f"http://127.0.0.1:{server.port}/chat/completions"
        async with session.post(url, json={"model": "m", "messages": []}) as response:
            body = await response.json()

    assert body["choices"][0]["message"]["content"] == "hi"
    assert server.paths == ["/chat/completions"]


@pytest.mark.parametrize(
    ("name", "var"),
    [
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("gpt-4o", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4", "ANTHROPIC_API_KEY"),
        ("deepseek/deepseek-chat", "DEEPSEEK_API_KEY"),
        ("ollama/llama3", None),
    ],
)
def test_key_env_var_names_the_providers_variable(name: str, var: str | None) -> None:
    assert key_env_var(name) == var


def test_importing_the_agent_does_not_import_litellm() -> None:
    code = "import sys, agent.llm, agent.brain, agent.offline; sys.exit('litellm' in sys.modules)"

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)

    assert result.returncode == 0, result.stderr or "agent.llm imported litellm at import time"
