"""What a provider's error means, in words a person understands: the one line braniac shows
when a model call fails, and whether an error is the provider refusing a `response_format`
(then braniac asks for JSON another way) rather than a failure."""
from __future__ import annotations

import re

from ..infra.config import ModelConfig
from .types import ModelUnavailable


def is_refusal(exc: Exception) -> bool:
    """A provider's 'I do not do response_format (or json_schema)', as opposed to any other error."""
    kind = type(exc).__name__
    message = str(exc).lower()
    if kind == "UnsupportedParamsError":
        return True
    # llama-cpp-python's server answers an unknown response_format type with HTTP 500
    return kind in ("BadRequestError", "UnprocessableEntityError", "InternalServerError") and any(
        word in message for word in ("response_format", "json_schema", "json_object", "structured output", "grammar"))


def explain(exc: Exception, config: ModelConfig, table: str = "model") -> ModelUnavailable:
    """`table`: the braniac.toml table the settings named in the message come from."""
    kind = type(exc).__name__
    message = str(exc)
    where = f" at {config.api_base}" if config.api_base else ""
    lowered = message.lower()
    if kind in ("Timeout", "APITimeoutError") or "timed out" in lowered:
        text = f"the model {config.name}{where} did not answer within {config.timeout:g} s ({table}.timeout)"
    elif kind == "MidStreamFallbackError" or "peer closed connection" in lowered or "incomplete chunked read" in lowered:
        text = f"the model server{where} broke off its answer midway (connection closed)"
    elif "missing credentials" in lowered or kind == "AuthenticationError" or "api key" in lowered and "invalid" in lowered:
        text = (f"the model {config.name} needs an API key: set the provider's variable (e.g. OPENAI_API_KEY, "
                f"ANTHROPIC_API_KEY) or {table}.api_key_env in braniac.toml")
    elif "connection error" in lowered or "connection refused" in lowered or kind == "APIConnectionError":
        text = f"could not connect to the model server{where or ' for ' + config.name}: is it running and reachable?"
    elif "expecting value" in lowered or "not a list" in lowered or "json" in lowered and "decode" in lowered:
        text = f"the model server{where} sent a reply braniac could not read (malformed response body)"
    elif kind == "NotFoundError" or "model not found" in lowered or "does not exist" in lowered:
        text = f"the model {config.name} was not found by its provider{where}; check {table}.name"
    elif kind == "RateLimitError":
        text = f"the provider of {config.name} is rate-limiting requests; wait a moment and try again"
    elif kind == "BadRequestError":
        text = f"the provider rejected the request for {config.name}: {first_line(message)}"
    elif kind == "InternalServerError" or "500" in message:
        text = f"the model server{where} failed (HTTP 500): {first_line(message)}"
    else:
        text = f"the model call failed ({kind}): {first_line(message)}"
    return ModelUnavailable(text)


def first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    line = re.sub(r"^litellm\.\w+:\s*", "", line)
    return line[:300]
