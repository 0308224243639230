"""Model prices, from `genai-prices <https://github.com/pydantic/genai-prices>`_ (Pydantic's
maintained price data, installed with reportgen) with a user override for private models.

Two uses: the session formats that record tokens but no cost (Claude Code, Codex CLI, Gemini
CLI, OpenAI Agents) price each model call from :meth:`PriceTable.price` (four per-million
rates); and ingest recomputes every run's cost from its model calls' tokens with
:meth:`PriceTable.cost` (``runs.cost_recomputed_usd``, reportgen/ingest/reprice.py), which
asks genai-prices for the exact price: its tiers (a prompt over 200k tokens costs more), its
cache tiers and the price in force on the call's date.

Token convention (the archive's): ``tokens_in`` is the whole prompt, cache reads and writes
included; ``tokens_out`` includes reasoning tokens. When a trace's cache counts exceed its
``tokens_in`` (a format that counts fresh input apart), fresh input is taken to be
``tokens_in`` and the cache counts are added to it.

A model name is looked up as given, then normalised (a Bedrock / Vertex prefix such as
``converse/jp.anthropic.`` or ``anthropic.``, a provider or proxy prefix such as ``anthropic/`` or
``litellm_proxy/``, a ``-v1:0`` or
``@date`` suffix and a trailing ``-YYYYMMDD`` or ``-YYYY-MM-DD`` date dropped; ``gpt-5-1`` read
as ``gpt-5.1``); a model neither the override nor
genai-prices knows has unknown (NULL) cost, never zero.

The override: a ``[prices]`` table in the nearest ``reportgen.toml`` (``[tool.reportgen.prices]``
in pyproject.toml), one sub-table per model, US dollars per million tokens::

    [prices.house-model-7]
    input = 1.0        # required
    output = 2.0       # required
    cache_read = 0.1   # default: the input rate
    cache_write = 1.25 # default: the input rate

An override model wins over genai-prices (and is priced linearly: no tiers, no dates).

For pricing many calls at once (reportgen/ingest/reprice.py), :meth:`PriceTable.day_price`
gives a model's price on one day as linear dollars per token, one :class:`Band` per range of
prompt sizes between genai-prices' tier thresholds, for SQL to apply; a price that is not
such (one that changes within the day, deepseek's off-peak hours) is left to
:meth:`PriceTable.cost` per call.

genai-prices is imported only when a price is first needed: CLI start-up does not pay for it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from reportgen.errors import UsageError

_M = 1_000_000.0
_RATES = ("input", "output", "cache_write", "cache_read")
#: the prompt bounds of a band that has none on that side
PROMPT_MIN = -(2**63)
PROMPT_MAX = 2**63 - 1


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


@dataclass(frozen=True)
class Usage:
    """One model call's tokens, in the archive's convention (see the module docstring)."""

    tokens_in: int | None
    tokens_out: int | None
    cache_read: int | None = None
    cache_write: int | None = None

    def split(self) -> tuple[int, int, int, int]:
        """(whole prompt, output, cache read, cache write), the prompt never below its cache
        parts."""
        read, write = self.cache_read or 0, self.cache_write or 0
        prompt = self.tokens_in or 0
        if prompt < read + write:  # fresh input counted apart from the cache
            prompt += read + write
        return prompt, self.tokens_out or 0, read, write


@dataclass(frozen=True)
class Band:
    """A price over one range of prompt sizes, ``prompt_above < prompt <= prompt_upto``
    (prompt: the whole prompt, as :meth:`Usage.split` gives it), as linear US dollars: per
    fresh input token (the prompt less its cache parts), output token, cache-read and
    cache-write token, plus ``per_call`` for every call (a per-request price)."""

    prompt_above: int
    prompt_upto: int
    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    per_call: Decimal = Decimal(0)

    @classmethod
    def of(cls, price: Price) -> Band:
        """The one band of a linear per-million ``price`` (an override, or base rates)."""

        def per_token(rate: float) -> Decimal:
            return Decimal(repr(rate)) / Decimal(1_000_000)

        return cls(
            PROMPT_MIN,
            PROMPT_MAX,
            per_token(price.input),
            per_token(price.output),
            per_token(price.cache_read),
            per_token(price.cache_write),
        )


@dataclass(frozen=True)
class DayPrice:
    """A known model's price on one day: its ``bands`` (ascending, covering every prompt
    size), or none when the price is not linear within bands, and then ``hourly`` says
    whether it changes within the day (each call is then priced at its own time)."""

    bands: tuple[Band, ...]
    hourly: bool = False


_PREFIX = re.compile(r"^(?:[a-z0-9_-]+/)?(?:[a-z]{2}\.)?(?:anthropic\.|google/|openai/)?")
_SUFFIX = re.compile(r"(?:-v\d+:\d+|@\d{8}|@latest)$")
_DATE = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
_GPT_DASH = re.compile(r"^(gpt-\d)-(\d)(?=-|$)")


def normalise(model: str) -> str:
    """``model`` lower-cased without provider prefixes, version suffixes and a trailing date."""
    name = model.strip().lower()
    name = _SUFFIX.sub("", _PREFIX.sub("", name, count=1))
    return _DATE.sub("", name)


class PriceTable:
    """Prices by model: the override's, then genai-prices'; and where they came from."""

    def __init__(self, overrides: dict[str, Price], override_source: str | None = None) -> None:
        self.overrides = overrides
        self.override_source = override_source
        self._refs: dict[str, tuple[str, str] | None] = {}
        self._rates: dict[str, Price | None] = {}
        self._models: dict[tuple[str, str], Any] = {}  # genai-prices ModelInfo, or None
        self._days: dict[int, tuple[Any, DayPrice]] = {}  # by id of a ModelPrice (kept)

    @property
    def as_of(self) -> str:
        """The genai-prices version whose data prices the models."""
        return f"genai-prices {_genai_version()}"

    @property
    def source(self) -> str:
        """Where prices come from: genai-prices, and the override file when there is one."""
        if self.override_source:
            return f"genai-prices + {self.override_source} [prices]"
        return "genai-prices"

    def _override(self, model: str) -> Price | None:
        return self.overrides.get(model) or self.overrides.get(normalise(model))

    def _ref(self, model: str) -> tuple[str, str] | None:
        """(model reference, provider id) genai-prices matches ``model`` to, or None."""
        if model not in self._refs:
            self._refs[model] = _match(model)
        return self._refs[model]

    def price(self, model: str | None) -> Price | None:
        """The base per-million rates of ``model`` (a tiered price's first tier; a missing
        cache rate is the input rate), or None when neither source knows it."""
        if not model:
            return None
        if model not in self._rates:
            found = self._override(model)
            if found is None:
                ref = self._ref(model)
                found = None if ref is None else _base_rates(*ref)
            self._rates[model] = found
        return self._rates[model]

    def cost(self, model: str | None, usage: Usage, when: datetime | None = None) -> float | None:
        """Dollars for one model call of ``model`` with ``usage``, at the price in force at
        ``when`` (None: today); None when the model is unknown."""
        if not model:
            return None
        prompt, out, read, write = usage.split()
        override = self._override(model)
        if override is not None:
            return override.cost(prompt - read - write, out, write, read)
        ref = self._ref(model)
        if ref is None:
            return None
        from genai_prices import Usage as GenaiUsage
        from genai_prices import calc_price

        try:
            result = calc_price(
                GenaiUsage(
                    input_tokens=prompt,
                    output_tokens=out,
                    cache_read_tokens=read,
                    cache_write_tokens=write,
                ),
                ref[0],
                provider_id=ref[1],
                genai_request_timestamp=when,
            )
        except (LookupError, ValueError):
            return None
        return float(result.total_price)

    def day_price(self, model: str | None, day: datetime | None) -> DayPrice | None:
        """The price of ``model``'s calls on the day of ``day`` (None: today) as bands of
        linear rates (see :class:`DayPrice`); None when the model is unknown.

        An override is one band. A genai-prices price is read at ``day`` and cut at its tier
        thresholds (a ``TieredPrices`` applies a tier's rate to the whole call when the prompt
        is above the tier's start); each band's rates are found by pricing one-token calls at
        that band's rates through genai-prices itself, and checked on a mixed call. No bands
        (price each call with :meth:`cost`) when the price changes within a day (a
        time-of-day price), the mixed call disagrees, a rate is of a kind other than a number
        or tiers, or genai-prices cannot price the model. The model is found once, and each
        of its prices (one per date range) cut once."""
        if not model:
            return None
        override = self._override(model)
        if override is not None:
            return DayPrice((Band.of(override),))
        ref = self._ref(model)
        if ref is None:
            return None
        if ref not in self._models:
            self._models[ref] = _model_info(*ref)
        info = self._models[ref]
        if info is None:
            return DayPrice(())
        if _hourly(info):
            return DayPrice((), hourly=True)
        price = info.get_prices(day or datetime.now(tz=UTC))  # as calc_price reads it
        known = self._days.get(id(price))
        if known is None or known[0] is not price:
            known = (price, _cut(price))
            self._days[id(price)] = known
        return known[1]


def _model_info(ref: str, provider: str) -> Any:
    """genai-prices' ModelInfo of ``ref`` at ``provider``, or None when it cannot price it."""
    from genai_prices import calc_price

    try:
        return calc_price(_usage(0, 0, 0, 0), ref, provider_id=provider).model
    except (LookupError, ValueError):
        return None


def _hourly(info: Any) -> bool:
    """Whether the model's price changes within a day (a time-of-day price)."""
    from genai_prices.types import TimeOfDateConstraint

    conditions = info.prices if isinstance(info.prices, list) else []
    return any(isinstance(c.constraint, TimeOfDateConstraint) for c in conditions)


def _cut(model_price: Any) -> DayPrice:
    """A genai-prices ModelPrice as bands cut at its tier starts (no bands: not linear)."""
    from genai_prices.types import ModelPrice, TieredPrices

    rates = {
        key: value
        for key, value in vars(model_price).items()
        if not key.startswith("_") and value is not None
    }
    if not all(isinstance(value, (Decimal, TieredPrices)) for value in rates.values()):
        return DayPrice(())
    starts = sorted(
        {t.start for v in rates.values() if isinstance(v, TieredPrices) for t in v.tiers}
    )
    edges = [PROMPT_MIN, *starts, PROMPT_MAX]
    bands: list[Band] = []
    for above, upto in pairwise(edges):
        prompt = max(above + 1, 0)
        flat = ModelPrice(**{key: _tier_rate(value, prompt) for key, value in rates.items()})
        band = _probe(flat, above, upto)
        if band is None:
            return DayPrice(())
        bands.append(band)
    return DayPrice(tuple(bands))


def _tier_rate(value: Any, prompt: int) -> Decimal:
    """The rate of ``value`` (a number or TieredPrices) for a call of ``prompt`` tokens: the
    last tier whose start the prompt is above, else the base (genai-prices' calc_unit_price)."""
    from genai_prices.types import TieredPrices

    if not isinstance(value, TieredPrices):
        return Decimal(value)
    for tier in reversed(value.tiers):
        if prompt > tier.start:
            return Decimal(tier.price)
    return Decimal(value.base)


def _probe(flat: Any, above: int, upto: int) -> Band | None:
    """The linear rates of the tier-free ModelPrice ``flat``, read from one-token calls; None
    when a mixed call is not their sum (the price is not linear in the four counts)."""

    def dollars(fresh: int, out: int, read: int, write: int) -> Decimal:
        price = flat.calc_price(_usage(fresh + read + write, out, read, write))
        return Decimal(price["total_price"])

    try:
        per_call = dollars(0, 0, 0, 0)
        ones = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
        rates = [dollars(*one) - per_call for one in ones]
        mixed = dollars(3, 5, 7, 11) - per_call
    except (LookupError, ValueError):
        return None
    if mixed != sum(n * r for n, r in zip((3, 5, 7, 11), rates, strict=True)):
        return None
    return Band(above, upto, rates[0], rates[1], rates[2], rates[3], per_call)


def _usage(prompt: int, out: int, read: int, write: int) -> Any:
    from genai_prices import Usage as GenaiUsage

    return GenaiUsage(
        input_tokens=prompt, output_tokens=out, cache_read_tokens=read, cache_write_tokens=write
    )


def _match(model: str) -> tuple[str, str] | None:
    from genai_prices import Usage as GenaiUsage
    from genai_prices import calc_price

    name = normalise(model)
    dotted = _GPT_DASH.sub(r"\1.\2", name)  # Codex's gpt-5-1-codex is gpt-5.1-codex
    for ref in dict.fromkeys((model, model.strip().lower(), name, dotted)):
        if not ref:
            continue
        try:
            found = calc_price(GenaiUsage(), ref)
        except LookupError:
            continue
        return ref, found.provider.id
    return None


def _base_rates(ref: str, provider: str) -> Price | None:
    from genai_prices import Usage as GenaiUsage
    from genai_prices import calc_price

    prices = calc_price(GenaiUsage(), ref, provider_id=provider).model_price

    def rate(value: Any, default: float) -> float:
        if value is None:
            return default
        return float(getattr(value, "base", value))

    fresh = rate(prices.input_mtok, 0.0)
    return Price(
        input=fresh,
        output=rate(prices.output_mtok, 0.0),
        cache_write=rate(prices.cache_write_mtok, fresh),
        cache_read=rate(prices.cache_read_mtok, fresh),
    )


@cache
def _genai_version() -> str:
    from importlib.metadata import version

    return version("genai-prices")


def load_table(config: Path | None = None) -> PriceTable:
    """genai-prices with the ``[prices]`` override of ``config`` (None: the nearest
    reportgen.toml or pyproject.toml with a [tool.reportgen] table) on top."""
    from reportgen.gating.thresholds import find_config

    chosen = config if config is not None else find_config()
    if chosen is None:
        return _table(None, 0.0)
    try:
        stamp = chosen.stat().st_mtime
    except OSError:
        stamp = 0.0
    return _table(chosen.resolve(), stamp)


@cache
def _table(path: Path | None, _stamp: float) -> PriceTable:
    if path is None:
        return PriceTable({})
    overrides = read_overrides(path)
    return PriceTable(overrides, str(path) if overrides else None)


def read_overrides(path: Path) -> dict[str, Price]:
    """The ``[prices]`` table of the config file ``path``, by normalised model name; a usage
    error names the file, model and rate that is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read config: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("reportgen", {})
    table = data.get("prices", {})
    where = "[tool.reportgen.prices]" if path.name == "pyproject.toml" else "[prices]"
    if not isinstance(table, dict):
        raise UsageError(f"{path}: {where} must be a table of models")
    prices: dict[str, Price] = {}
    for name, rates in table.items():
        if not isinstance(rates, dict):
            raise UsageError(f"{path}: {where} {name}: expected a table of rates")
        unknown = sorted(set(rates) - set(_RATES))
        if unknown:
            raise UsageError(
                f"{path}: {where} {name}: unknown key {unknown[0]!r} (known: {', '.join(_RATES)})"
            )
        values: dict[str, float] = {}
        for key in ("input", "output", "cache_write", "cache_read"):
            value = rates.get(key, rates.get("input") if key.startswith("cache") else None)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UsageError(
                    f"{path}: {where} {name}.{key}: expected a non-negative number"
                    " (dollars per million tokens)"
                )
            values[key] = float(value)
        prices[normalise(str(name))] = Price(**values)
        prices[str(name)] = prices[normalise(str(name))]
    return prices
