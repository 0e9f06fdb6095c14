"""The one module that talks to a real model, through litellm.

litellm is imported lazily inside :meth:`LiteLLMModel.complete`: importing it
costs seconds and hundreds of megabytes, and the offline model never needs it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

from agent import usage
from agent.errors import LLMError
from agent.logs import adopt_console_loggers
from agent.offline import OfflineModel
from agent.ports import ChatModel, LLMRequest

__all__ = ["OFFLINE_NAMES", "LiteLLMModel", "key_env_var", "make_model"]

log = logging.getLogger(__name__)
OFFLINE_NAMES = frozenset({"", "offline"})

# Provider prefix (or bare model-name prefix) -> the env var holding its key.
_KEY_VARS: tuple[tuple[str, str], ...] = (
    ("openai/", "OPENAI_API_KEY"),
    ("gpt-", "OPENAI_API_KEY"),
    ("o1", "OPENAI_API_KEY"),
    ("o3", "OPENAI_API_KEY"),
    ("o4", "OPENAI_API_KEY"),
    ("anthropic/", "ANTHROPIC_API_KEY"),
    ("claude", "ANTHROPIC_API_KEY"),
    ("gemini/", "GEMINI_API_KEY"),
    ("groq/", "GROQ_API_KEY"),
    ("mistral/", "MISTRAL_API_KEY"),
    ("deepseek/", "DEEPSEEK_API_KEY"),
    ("openrouter/", "OPENROUTER_API_KEY"),
    ("together_ai/", "TOGETHERAI_API_KEY"),
    ("azure/", "AZURE_API_KEY"),
    ("xai/", "XAI_API_KEY"),
    ("dashscope/", "DASHSCOPE_API_KEY"),
    ("moonshot/", "MOONSHOT_API_KEY"),
)
_KEYLESS_PREFIXES = ("ollama/", "ollama_chat/", "hosted_vllm/", "lm_studio/")
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
_CREDENTIAL_WORDS = ("api_key", "api key", "credential", "unauthorized", "authentication")


def key_env_var(model: str) -> str | None:
    """The env var that usually holds the API key for ``model`` (None if it needs none or is unknown)."""
    lowered = model.lower()
    if lowered.startswith(_KEYLESS_PREFIXES):
        return None
    for prefix, var in _KEY_VARS:
        if lowered.startswith(prefix):
            return var
    return None


class LiteLLMModel:
    """A :class:`~agent.ports.ChatModel` backed by ``litellm.acompletion``.

    Provider errors that may pass (rate limits, 5xx, timeouts, dropped connections)
    are retried ``retries`` times with exponential backoff; anything else, or the
    last failure, becomes an :class:`LLMError` that says what to check.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        timeout: float = 60,
        retries: int = 2,
        *,
        backoff: float = 1.0,
    ) -> None:
        if not model.strip():
            raise LLMError("No model name given. Set TANDEM_MODEL (for example 'openai/gpt-4o-mini') or 'offline'.")
        self.name = model
        self.api_base = api_base or None
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.schemas = True  # until the provider refuses one: then JSON mode, and the prompt states the shape

    async def complete(self, request: LLMRequest) -> str:
        # The first import takes seconds: do it off the event loop so nothing else stalls.
        litellm: Any = sys.modules.get("litellm") or await asyncio.to_thread(_import_litellm)
        attempt = 1
        while True:
            schema = request.answer_schema if self.schemas else None
            try:
                response = await litellm.acompletion(
                    model=self.name,
                    messages=request.messages,
                    api_base=self.api_base,
                    timeout=self.timeout,
                    temperature=0,
                    response_format=_response_format(request.purpose, schema),
                    drop_params=True,  # providers without JSON mode still answer; the prompt asks for JSON
                    max_retries=0,  # retries are ours, so they are counted and reported once
                )
            except Exception as exc:
                if schema is not None and _refuses_schema(exc):
                    log.info("model %s takes no JSON schema; asking in JSON mode: %s", self.name, _first_line(str(exc)))
                    self.schemas = False
                    continue
                if attempt > self.retries or not _retryable(exc):
                    raise LLMError(self._explain(exc, attempt, request)) from exc
                log.warning("model %s failed (attempt %d), retrying: %s", self.name, attempt, _first_line(str(exc)))
                await asyncio.sleep(min(self.backoff * 2 ** (attempt - 1), 30.0))
                attempt += 1
                continue
            _note_usage(response)
            return self._content(response, request)

    def _content(self, response: Any, request: LLMRequest) -> str:
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError):
            content = None
        if not isinstance(content, str) or not content.strip():
            raise LLMError(
                f"Model '{self.name}' returned no text for the {request.purpose} request. "
                "Check that TANDEM_MODEL names a chat model that supports plain text answers."
            )
        return content

    def _explain(self, exc: Exception, attempts: int, request: LLMRequest) -> str:
        status = getattr(exc, "status_code", None)
        what = f"{type(exc).__name__}" + (f" (HTTP {status})" if isinstance(status, int) else "")
        detail = _first_line(str(exc))
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        where = f" at {self.api_base}" if self.api_base else ""
        checks = [f"TANDEM_MODEL is '{self.name}' (litellm 'provider/model' form)"]
        checks.append(
            f"TANDEM_LLM_API_BASE is '{self.api_base}' and that server is up"
            if self.api_base
            else "TANDEM_LLM_API_BASE if you use a local or proxy server"
        )
        var = key_env_var(self.name)
        if var:
            checks.append(f"{var} is set and valid")
        return (
            f"The model '{self.name}'{where} failed on the {request.purpose} request{tries}: {what}: {detail}. "
            f"Check that {'; '.join(checks)}."
        )


def make_model(name: str | None, api_base: str | None = None, timeout: float = 60) -> ChatModel:
    """``None``, ``""`` or ``"offline"`` -> the deterministic offline model; anything else -> litellm,
    each call given ``timeout`` seconds (``TANDEM_LLM_TIMEOUT``)."""
    cleaned = (name or "").strip()
    if cleaned.lower() in OFFLINE_NAMES:
        return OfflineModel()
    return LiteLLMModel(cleaned, api_base=api_base or None, timeout=timeout)


def _import_litellm() -> Any:
    # Without this litellm fetches a price list from the internet at import time.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - litellm is a declared dependency
        raise LLMError("litellm is not installed; install Tandem's dependencies or set TANDEM_MODEL=offline.") from exc
    litellm.suppress_debug_info = True
    adopt_console_loggers()  # litellm's own handler writes INFO lines to stdout
    return litellm


def _note_usage(response: Any) -> None:
    """The tokens litellm reports for a response (``usage``), for the run's audit trail."""
    reported = getattr(response, "usage", None)
    prompt = getattr(reported, "prompt_tokens", None)
    completion = getattr(reported, "completion_tokens", None)
    if isinstance(prompt, int) and isinstance(completion, int):
        usage.note_tokens(prompt, completion)


def _response_format(purpose: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The answer's JSON schema where there is one (held to it, enums included); else plain JSON mode."""
    if schema is None:
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": purpose, "schema": schema, "strict": True}}


def _refuses_schema(exc: Exception) -> bool:
    """A provider's 400 saying it takes no ``json_schema`` response format (it may take JSON mode)."""
    status = getattr(exc, "status_code", None)
    text = str(exc).lower()
    return status in (400, 422) and any(word in text for word in ("json_schema", "response_format", "schema"))


def _retryable(exc: Exception) -> bool:
    text = str(exc).lower()
    if any(word in text for word in _CREDENTIAL_WORDS):
        return False  # litellm reports a missing key as a 500; retrying cannot help
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in _RETRY_STATUSES or status >= 500
    name = type(exc).__name__.lower()
    return any(word in name for word in ("timeout", "connection", "ratelimit", "unavailable", "internalserver"))


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no details"
    return line if len(line) <= limit else line[: limit - 1] + "…"
