"""``tcplab testbed run|cleanup`` and ``tcplab compare``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ScenarioError
from . import net
from .compare import compare as compare_runs
from .runner import run_scenario

app = typer.Typer(
    help="Run scenarios on real Linux TCP in network namespaces (needs root).", no_args_is_help=True
)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@app.command("run")
def run_cmd(
    file: Annotated[Path, typer.Argument(help="Scenario TOML (the supported subset of the simulator's).")],
    out: Annotated[Path | None, typer.Option(help="Directory for records (parquet) and the pcap.")] = None,
    capture: Annotated[bool, typer.Option(help="Capture the bottleneck to a pcap in --out.")] = True,
    ca_trace: Annotated[
        bool,
        typer.Option(
            help="Build tcplab's Vegas-family ports to trace each round (alpha, beta, the round's "
            "RTT) into the run's cc_vars, and keep the trace in --out."
        ),
    ] = False,
) -> None:
    """Run a scenario on the kernel test bed and print its flows."""
    try:
        r = run_scenario(file, out_dir=out, capture=capture, ca_trace=ca_trace)
    except (ScenarioError, net.TestbedError, RuntimeError, OSError) as e:
        _fail(str(e))
    if out is not None:
        r.to_parquet(out)
    cols = ["name", "cc", "kernel_cc", "goodput_bps", "retransmissions", "mean_rtt", "min_rtt"]
    typer.echo(r.flows[cols].to_string(index=False))
    if ca_trace:
        traced = r.cc_vars[r.cc_vars["name"] == "alpha"] if len(r.cc_vars) else r.cc_vars
        if len(traced):
            typer.echo(f"rounds traced: {len(traced)} (cc_vars alpha, beta, round_rtt, round_min_rtt)")
        else:
            typer.echo("rounds traced: none (only tcplab's Vegas-family ports trace their rounds)")


@app.command("archive")
def archive_cmd(
    store: Annotated[Path, typer.Option(help="Result store holding linux/conformance's kernel runs.")] = Path(
        "results"
    ),
    archive: Annotated[Path | None, typer.Option(help="The archive (default: the package's).")] = None,
) -> None:
    """Add the kernel runs of linux/conformance that a store holds to the archive of kernel
    measurements (their figures, when and on which kernel), so that the comparison can be made
    again without the test bed: ``tcplab reproduce linux/conformance`` without --kernel uses it."""
    from ..cli import _existing_store
    from ..experiments.linux import LinuxConformance
    from . import archive as kernel_archive

    rs = _existing_store(store, need_runs=True)
    target = archive or kernel_archive.ARCHIVE
    exp = LinuxConformance(archive=target)
    rows = exp.archive_rows(rs)
    if not rows:
        _fail(f"--store {store} holds no kernel run of linux/conformance's matrix (full or quick)")
    try:
        added, replaced = kernel_archive.merge(rows, target)
    except (OSError, ValueError) as e:
        _fail(f"--archive {target}: {e}")
    traces = kernel_archive.traces_path(target)
    try:
        traced = kernel_archive.merge_traces(exp.archive_traces(rs), traces)
    except (OSError, ValueError) as e:
        _fail(f"--archive {target}: its traces file {traces}: {e} (the figures were archived)")
    typer.echo(
        f"{target}: {added} kernel run(s) added, {replaced} replaced; "
        f"{traced} trace(s) for the report's figures"
    )


@app.command("cleanup")
def cleanup_cmd() -> None:
    """Remove what runs whose process is gone left behind (namespaces, their processes,
    sockets and qdiscs); a run still going is never touched."""
    names = net.cleanup()
    typer.echo(f"removed {len(names)} namespace(s)" + (f": {', '.join(names)}" if names else ""))


def compare(
    file: Annotated[Path, typer.Argument(help="Scenario TOML run on both the test bed and the simulator.")],
    out: Annotated[Path | None, typer.Option(help="Directory for the kernel run's pcap.")] = None,
    native: Annotated[
        bool, typer.Option(help="reno and cubic are the kernel's own, not tcplab's BPF ports.")
    ] = False,
) -> None:
    """Run one scenario on the kernel test bed and in the simulator; print both side by side:
    per flow goodput, retransmissions, timeouts, RTTs, mean cwnd and (BBR) bandwidth estimate,
    and how long the kernel's flow was held back by the receiver's window or its send buffer,
    then the bottleneck's queue and drops."""
    try:
        table = compare_runs(file, out_dir=out, capture=out is not None, native=native)
    except (ScenarioError, net.TestbedError, RuntimeError) as e:
        _fail(str(e))
    flows = table.set_index("name").T
    typer.echo(
        "flows (kernel beside sim; RTTs in s, cwnd in segments, rates in b/s, over the measurement window; "
        "the kernel's busy and limited times in s over the whole run):"
    )
    typer.echo(flows.to_string())
    typer.echo("\nbottleneck (queue in packets, sampled every 10 ms on the kernel):")
    typer.echo(table.attrs["bottleneck"].to_string(index=False))
