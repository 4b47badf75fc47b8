"""runlens report: marts -> dataclasses -> rules -> Markdown."""
