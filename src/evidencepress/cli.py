"""Command-line interface (placeholder while the pipeline is assembled)."""

import click


@click.group()
def main() -> None:
    """evidencepress: build and check an evidence site."""
