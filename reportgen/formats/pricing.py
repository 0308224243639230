"""Model prices, for the session formats that record tokens but no cost (Claude Code, Codex
CLI, Gemini CLI). A shipped table, dated, overridable by a user file.

Prices are US dollars per million tokens, four rates per model: fresh ``input``, ``output``,
``cache_write`` (prompt-cache creation, Anthropic's 5-minute rate) and ``cache_read``. A model
name is looked up as given, then normalised (a Bedrock / Vertex prefix such as
``converse/jp.anthropic.`` or ``anthropic.``, a ``-v1:0`` or ``@date`` suffix, and a trailing
``-YYYYMMDD`` date dropped), then by the longest table key it starts with when the rest names
a variant (``-codex``, ``-latest``; not another version: ``claude-opus-4-8`` is not
``claude-opus-4``); a model the table does not know has unknown (NULL) cost, never zero.

The user file is named by the environment variable ``REPORTGEN_PRICES`` (JSON):
``{"as_of": "2027-01-15", "models": {"claude-sonnet-4-5": {"input": 3, "output": 15,
"cache_write": 3.75, "cache_read": 0.3}}}``; its models are added to (and win over) the
shipped ones."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import orjson

from reportgen.errors import InputError

#: The date of the shipped prices: the providers' list prices as known then (they change;
#: a user file overrides them).
AS_OF = "2026-12-01"

_M = 1_000_000.0


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(
        self,
        input_tokens: int | None,
        output_tokens: int | None,
        cache_write: int | None = None,
        cache_read: int | None = None,
    ) -> float:
        """Dollars for these token counts (``input_tokens`` excludes the cached ones)."""
        return (
            (input_tokens or 0) * self.input
            + (output_tokens or 0) * self.output
            + (cache_write or 0) * self.cache_write
            + (cache_read or 0) * self.cache_read
        ) / _M


def _p(input: float, output: float, cache_write: float, cache_read: float) -> Price:
    return Price(input, output, cache_write, cache_read)


#: Shipped prices (as of AS_OF). Keys are normalised model names or their prefixes.
SHIPPED: dict[str, Price] = {
    # Anthropic (cache write = 1.25 x input, cache read = 0.1 x input)
    "claude-opus-4-5": _p(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-1": _p(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": _p(15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-4-5": _p(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4": _p(3.0, 15.0, 3.75, 0.30),
    "claude-3-7-sonnet": _p(3.0, 15.0, 3.75, 0.30),
    "claude-3-5-sonnet": _p(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": _p(1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": _p(0.80, 4.0, 1.0, 0.08),
    "claude-3-haiku": _p(0.25, 1.25, 0.30, 0.03),
    "claude-3-opus": _p(15.0, 75.0, 18.75, 1.50),
    # OpenAI (no cache-write charge; cached input at the cached rate)
    "gpt-5-mini": _p(0.25, 2.0, 0.0, 0.025),
    "gpt-5-nano": _p(0.05, 0.40, 0.0, 0.005),
    "gpt-5": _p(1.25, 10.0, 0.0, 0.125),
    "gpt-5.1": _p(1.25, 10.0, 0.0, 0.125),
    "gpt-5-1": _p(1.25, 10.0, 0.0, 0.125),
    "gpt-4.1-mini": _p(0.40, 1.60, 0.0, 0.10),
    "gpt-4.1": _p(2.0, 8.0, 0.0, 0.50),
    "gpt-4o-mini": _p(0.15, 0.60, 0.0, 0.075),
    "gpt-4o": _p(2.50, 10.0, 0.0, 1.25),
    "o4-mini": _p(1.10, 4.40, 0.0, 0.275),
    "o3": _p(2.0, 8.0, 0.0, 0.50),
    "codex-mini": _p(1.50, 6.0, 0.0, 0.375),
    # Google (prompts up to 200k tokens)
    "gemini-2.5-pro": _p(1.25, 10.0, 0.0, 0.125),
    "gemini-2.5-flash-lite": _p(0.10, 0.40, 0.0, 0.01),
    "gemini-2.5-flash": _p(0.30, 2.50, 0.0, 0.03),
    "gemini-2.0-flash": _p(0.10, 0.40, 0.0, 0.025),
}

_PREFIX = re.compile(r"^(?:[a-z]+/)?(?:[a-z]{2}\.)?(?:anthropic\.|google/|openai/)?")
_SUFFIX = re.compile(r"(?:-v\d+:\d+|@\d{8}|@latest)$")
_DATE = re.compile(r"-\d{8}$")


def normalise(model: str) -> str:
    """``model`` lower-cased without provider prefixes, version suffixes and a trailing date."""
    name = model.strip().lower()
    name = _SUFFIX.sub("", _PREFIX.sub("", name, count=1))
    return _DATE.sub("", name)


class PriceTable:
    """Prices by model, and where they came from (for run meta)."""

    def __init__(self, prices: dict[str, Price], as_of: str, source: str) -> None:
        self.prices = prices
        self.as_of = as_of
        self.source = source
        self._memo: dict[str, Price | None] = {}

    def price(self, model: str | None) -> Price | None:
        """The price of ``model``, or None when the table does not know it."""
        if not model:
            return None
        if model not in self._memo:
            self._memo[model] = self._lookup(model)
        return self._memo[model]

    def _lookup(self, model: str) -> Price | None:
        if model in self.prices:
            return self.prices[model]
        name = normalise(model)
        if name in self.prices:
            return self.prices[name]
        keys = [k for k in self.prices if name.startswith(k) and _variant(name[len(k) :])]
        return self.prices[max(keys, key=len)] if keys else None


def _variant(rest: str) -> bool:
    """True when what follows a table key names a variant of that model (``-codex``,
    ``-latest``), not another version (``-8``, ``.1``)."""
    return rest == "" or (rest[0] == "-" and rest[1:2].isalpha())


def load_table(path: str | None = None) -> PriceTable:
    """The shipped table, with the user file (``path``, else ``$REPORTGEN_PRICES``) on top."""
    chosen = path if path is not None else os.environ.get("REPORTGEN_PRICES")
    if not chosen:
        return _shipped()
    return _with_user_file(chosen)


@cache
def _shipped() -> PriceTable:
    return PriceTable(dict(SHIPPED), AS_OF, "reportgen")


@cache
def _with_user_file(path: str) -> PriceTable:
    where = Path(path)
    try:
        data = orjson.loads(where.read_bytes())
    except OSError as exc:
        raise InputError(path, f"cannot read the price file: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(path, f"the price file is not valid JSON: {exc}") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise InputError(path, "expected an object with a models object", field="models")
    prices = dict(SHIPPED)
    for name, rates in models.items():
        field = f"models.{name}"
        if not isinstance(rates, dict):
            raise InputError(path, "expected an object of rates", field=field)
        values: dict[str, float] = {}
        for key in ("input", "output", "cache_write", "cache_read"):
            value = rates.get(key, 0.0 if key.startswith("cache") else None)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InputError(path, "expected a non-negative number", field=f"{field}.{key}")
            values[key] = float(value)
        prices[normalise(str(name))] = Price(**values)
    as_of = data.get("as_of")
    return PriceTable(prices, str(as_of) if as_of else AS_OF, str(where))
