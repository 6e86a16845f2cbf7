"""The `quiver` command: one module per subcommand, sharing the argument and progress helpers here."""
