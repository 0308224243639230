"""reportgen: see how LLM agents behave across many runs."""

__version__ = "0.1.0"
