"""runlens report: marts -> rows typed by their contracts -> rules -> Markdown."""
