"""What the user types: one module per `runlens` subcommand, each with `add_arguments(parser)` and
`run(args, parser)` (runlens/cli.py dispatches to them), and option_aliases.py (old option names).
The commands sit on top: they use the other packages, and none of those imports them (the messages
that name a command to run are runlens/usage.py, shared by all)."""
