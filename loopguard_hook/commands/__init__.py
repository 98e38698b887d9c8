"""The operator commands of `cli.py`, one module per command or small group of commands.

`cli.py` registers them on its group; these modules, with it, are the only ones that import click.
"""
