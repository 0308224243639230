"""reportgen: see how LLM agents behave across many runs."""

__version__ = "0.1.0"

__all__ = ["__version__", "assert_no_regressions", "compare", "evaluate"]


def __getattr__(name: str) -> object:
    """``reportgen.compare``, ``reportgen.evaluate`` and ``reportgen.assert_no_regressions``,
    imported on first use so that ``import reportgen`` stays light."""
    if name in ("compare", "evaluate", "assert_no_regressions"):
        from reportgen import api

        return getattr(api, name)
    raise AttributeError(f"module 'reportgen' has no attribute {name!r}")
