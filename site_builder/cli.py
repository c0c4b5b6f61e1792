"""The ``kernelindex`` command line."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

import click

from .problems import DataError

DEFAULT_DATA = Path("data")


# Commands that live in their own modules, imported only when used: `kernelindex validate` must not
# pay for importing the renderer, and `kernelindex bench` is the only one that imports torch.
LAZY_COMMANDS = {
    "build": ("site_builder.build", "command", "Build the static site from data/ into site/."),
    "serve": ("site_builder.serve", "command", "Preview the built site on a local HTTP server."),
    "import": ("site_builder.importers.commands", "command", "Turn an external source's published data into run files."),
    "export": ("site_builder.export", "command", "Write the catalogue in the public KernelIndex's export format (JSONL)."),
    "fmt": ("site_builder.fmt_command", "command", "Rewrite data files into canonical form (keeps comments)."),
    "new": ("site_builder.scaffold", "command", "Scaffold a new data file (e.g. `new run`)."),
    "diff": ("site_builder.diff", "command", "What a change to data/ does to the leaderboard, as Markdown."),
    "synth": ("site_builder.synth", "command", "Generate a synthetic data repository for scale tests."),
    "site-size": ("site_builder.site_limits", "command", "Measure a built site and check it against a static host's limits."),
    "bench": ("harness.cli", "command", "Measure kernels on a GPU and write run files."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS and name not in self.commands:
            module_name, attribute, help_text = LAZY_COMMANDS[name]
            try:
                import importlib

                module = importlib.import_module(module_name)
            except ModuleNotFoundError as error:
                if error.name and module_name.startswith(error.name):

                    @click.command(name=name, help=help_text, context_settings={"ignore_unknown_options": True})
                    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
                    def unavailable(args: tuple[str, ...]) -> None:
                        raise click.ClickException(f"`kernelindex {name}` is not available in this version")

                    return unavailable
                raise
            return getattr(module, attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in LAZY_COMMANDS:
                rows.append((name, LAZY_COMMANDS[name][2]))
            else:
                command = self.commands[name]
                rows.append((name, command.get_short_help_str(limit=70)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """KernelIndex: a leaderboard of GPU kernel runs, built from YAML files in git."""


@main.command()
@click.argument("data_dir", type=click.Path(path_type=Path), default=DEFAULT_DATA)
@click.option("--format", "output_format", type=click.Choice(["text", "github"]), default="text", show_default=True,
              help="github: print problems as ::error workflow commands, so GitHub Actions marks the file and line.")
@click.option("--no-cache", is_flag=True, help="Parse every file again instead of reusing unchanged files' models.")
def validate(data_dir: Path, no_cache: bool, output_format: str = "text") -> None:
    """Check every data file; print each problem as path:line:col: message."""
    from .repository import load_catalog

    try:
        catalog = load_catalog(data_dir, cache=not no_cache)
    except DataError as error:
        for problem in error.problems:
            if output_format == "github":
                click.echo(github_annotation(problem))
            else:
                click.echo(str(problem), err=True)
        click.echo(f"{data_dir}: {len(error.problems)} problem{'s' if len(error.problems) != 1 else ''}", err=True)
        sys.exit(1)
    except FileNotFoundError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    counts = Counter(entity.kind for kind in catalog.by_kind.values() for entity in kind.values())
    detail = ", ".join(f"{count:,} {kind}" for kind, count in sorted(counts.items()))
    click.echo(f"{data_dir}: {sum(counts.values()):,} files valid ({detail})")


def github_annotation(problem) -> str:
    """A problem as a GitHub Actions workflow command: the PR's diff shows it on the file's line."""
    def escape(text: str, property_value: bool = False) -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if property_value else text

    message = " ".join(problem.message.split())
    return (f"::error file={escape(problem.path, True)},line={problem.line},col={problem.column},"
            f"title=kernelindex validate::{escape(message)}")


@main.command()
@click.option("--check", is_flag=True, help="Fail if the files in schemas/json/ are out of date instead of writing them.")
def schema(check: bool) -> None:
    """Write the JSON Schema of every kind (authoring and canonical form) to schemas/json/."""
    from schemas.jsonschema import SCHEMA_DIR, generate_schemas, write_schemas

    if check:
        expected = generate_schemas()
        stale = [name for name, text in expected.items()
                 if not (SCHEMA_DIR / name).exists() or (SCHEMA_DIR / name).read_text(encoding="utf-8") != text]
        extra = [p.name for p in SCHEMA_DIR.glob("*.schema.json") if p.name not in expected]
        if stale or extra:
            click.echo(f"schemas/json is out of date ({len(stale) + len(extra)} files): run `kernelindex schema`", err=True)
            sys.exit(1)
        click.echo(f"schemas/json: {len(expected)} files up to date")
        return
    written = write_schemas()
    click.echo(f"schemas/json: {len(written)} file{'s' if len(written) != 1 else ''} written")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=DEFAULT_DATA, show_default=True,
              help="The data folder the file's references resolve against.")
def digest(file: Path, data_dir: Path) -> None:
    """Print a data file's canonical manifest and its digest."""
    from schemas.digest import canonical_json, identity_body

    from .repository import load_catalog

    try:
        catalog = load_catalog(data_dir)
    except DataError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        sys.exit(1)
    for kind in catalog.by_kind.values():
        for entity in kind.values():
            if entity.document.path.resolve() == file.resolve():
                click.echo(json.dumps(entity.manifest(), indent=2, ensure_ascii=False))
                click.echo(canonical_json(identity_body(entity.kind, entity.canonical_spec)))
                click.echo(entity.digest)
                return
    click.echo(f"error: {file} is not a data file under {data_dir}", err=True)
    sys.exit(2)


# Commands after which a successful process ends without freeing its objects one by one: a build
# at 100,000 runs holds about 2 GB of them, and the interpreter's teardown would take seconds to
# hand back what the operating system takes back at once. Only commands that leave no file open,
# no cleanup to atexit handlers and no child process behind belong here. A failed command exits
# the usual way: a build stopped early may still be waiting for its Vega bundle process.
EXIT_WITHOUT_TEARDOWN = {"build"}


def run() -> None:
    """The ``kernelindex`` console script: ``main``, then the exit."""
    try:
        main()
    except SystemExit as done:
        if done.code in (0, None) and sys.argv[1:2] and sys.argv[1] in EXIT_WITHOUT_TEARDOWN:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        raise


if __name__ == "__main__":
    run()
