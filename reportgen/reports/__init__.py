"""Reports for people and machines: terminal (rich), Markdown, JSON."""
