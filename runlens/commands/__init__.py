"""What the user types: one module per `runlens` subcommand, each with `add_arguments(parser)` and
`run(args, parser)` (runlens/cli.py dispatches to them), and the command line's helpers: usage.py
(the messages that name a command to run next) and option_aliases.py (old option names)."""
