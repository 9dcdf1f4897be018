"""One module per `guardtui` subcommand; cli.py imports only the one that runs."""
