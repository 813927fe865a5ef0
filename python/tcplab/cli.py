"""The ``tcplab`` command line."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from .errors import OutputError, ScenarioError, SimulationError
from .runner import as_scenario, run

app = typer.Typer(
    help="tcplab: a congestion-control laboratory. Run scenarios, reproduce the papers' experiments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def _human_rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3f} {unit}"
    return f"{bps:.0f} b/s"


def flows_table(flows, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("flow", "cc", "path", "goodput", "sent", "retx", "timeouts", "fast rtx", "drops", "mean RTT"):
        table.add_column(col, justify="left" if col in ("flow", "cc", "path") else "right")
    drop_cols = [c for c in flows.columns if c.startswith("data_drops_")]
    for _, f in flows.iterrows():
        drops = int(sum(f[c] for c in drop_cols))
        table.add_row(
            str(f["name"]),
            str(f["cc"]),
            f"{f['src']}->{f['dst']}",
            _human_rate(f["goodput_bps"]),
            str(f["segments_sent"]),
            str(f["retransmissions"]),
            str(f["timeouts"]),
            str(f["fast_retransmits"]),
            str(drops),
            f"{f['mean_rtt'] * 1e3:.1f} ms",
        )
    return table


@app.command("run")
def run_cmd(
    file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    seed: Annotated[int | None, typer.Option(help="Override the scenario's seed.")] = None,
    out: Annotated[Path | None, typer.Option(help="Directory for Parquet tables.")] = None,
) -> None:
    """Run one scenario, print a per-flow table and optionally write Parquet tables."""
    try:
        scenario = as_scenario(file)
        with console.status(f"simulating {file} ...", spinner="dots"):
            t0 = time.perf_counter()
            res = run(scenario, seed=seed, out_dir=out)
            wall = time.perf_counter() - t0
    except ScenarioError as e:
        fail(f"{file}: {e}")
    except SimulationError as e:
        fail(str(e), code=3)
    except OutputError as e:
        fail(f"{e} (pcap traces need --out DIR)")
    m = res.meta
    title = (
        f"{file.name}: {m['duration']:g} s simulated in {wall:.2f} s wall, seed {m['seed']}, "
        f"goodput over [{m['measure'][0]:g}, {m['measure'][1]:g}] s, Jain index {res.jain_index():.3f}"
    )
    console.print(flows_table(res.flows, title))
    if out is not None:
        written = res.to_parquet(out)
        scenario.save(out / "scenario.toml")
        console.print(f"wrote {len(written)} tables and scenario.toml to {out}/")


@app.command()
def validate(file: Annotated[Path, typer.Argument(help="Scenario TOML file.")]) -> None:
    """Check a scenario file; print its flows and topology, or what is wrong."""
    try:
        canonical = as_scenario(file).validate()
    except ScenarioError as e:
        fail(f"{file}: {e}")
    flows = canonical.count("[[flows]]")
    console.print(f"[green]ok[/]: {file} is a valid scenario ({flows} flow entries)")


@app.command()
def algorithms() -> None:
    """List the congestion-control algorithms."""
    from . import algorithms as names

    for n in names():
        console.print(n)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
