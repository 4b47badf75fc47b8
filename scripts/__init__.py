"""runlens' scripts, a package so that scripts and tests import them by their full name (scripts.<module>);
each still runs as `python scripts/<name>.py`, which puts the checkout first on sys.path."""
