"""The ``tcplab`` command line."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from .errors import OutputError, ScenarioError, SimulationError
from .runner import as_scenario, run
from .tables import SeriesFiles

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
    """Run one scenario, print a per-flow table and optionally write Parquet tables (the
    time series are written while the run goes on, so long runs do not hold them in memory)."""
    try:
        scenario = as_scenario(file)
        with console.status(f"simulating {file} ...", spinner="dots"):
            t0 = time.perf_counter()
            if out is None:  # the table needs no series: memory stays flat however long the run
                res = run(scenario, seed=seed, keep_series=False)
            else:
                with SeriesFiles(out, parquet=True) as series:
                    res = run(scenario, seed=seed, out_dir=out, series_sink=series)
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
        written = [*series.paths.values(), *res.to_parquet(out, exclude=series.paths)]
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


def _store(path: Path | None):
    from .store import DEFAULT_ROOT, ResultStore

    return ResultStore(path or DEFAULT_ROOT)


@app.command()
def experiments() -> None:
    """List every experiment of the five papers with its status on this build."""
    from . import capabilities
    from .experiments import PAPERS, all_experiments

    caps = capabilities()
    table = Table(title="Experiments (tcplab reproduce NAME | PAPER | all)", title_justify="left")
    for col in ("name", "paper", "title", "status"):
        table.add_column(col)
    for e in all_experiments():
        missing = e.missing(caps)
        status = "[green]ready[/]" if not missing else f"[yellow]needs: {', '.join(missing)}[/]"
        table.add_row(e.name, e.paper, e.title, status)
    console.print(table)
    console.print("papers: " + ", ".join(f"{k} = {v}" for k, v in PAPERS.items()), highlight=False)


@app.command()
def reproduce(
    names: Annotated[
        list[str], typer.Argument(help="Experiment names, paper names (code, veno, ...) or 'all'.")
    ],
    quick: Annotated[bool, typer.Option(help="Reduced repetitions and durations (smoke test).")] = False,
    executor: Annotated[str, typer.Option(help="local (all cores), serial, or ray.")] = "local",
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --executor ray).")] = None,
    store: Annotated[Path | None, typer.Option(help="Result store directory.")] = None,
    report: Annotated[Path, typer.Option(help="Where to write the report.")] = Path("report"),
) -> None:
    """Run experiments (reusing stored runs) and write the reproduction report."""
    from . import capabilities
    from .executors import make_executor
    from .experiments import resolve
    from .experiments.base import Outcome
    from .report import check_report_dir, write_report
    from .sweep import analyze, execute_plan, plan

    if jobs is not None and jobs < 1:
        fail(f"--jobs {jobs} is not allowed; give at least 1")
    try:
        check_report_dir(report)
    except OutputError as e:
        fail(f"--report {e}")
    try:
        chosen = resolve(names)
        ex = make_executor(executor, jobs, address)
    except (KeyError, ValueError, RuntimeError) as e:
        fail(str(e.args[0] if e.args else e))
    caps = capabilities()
    ready = [e for e in chosen if not e.missing(caps)]
    blocked = [e for e in chosen if e.missing(caps)]
    for e in blocked:
        if e.explicit and "testbed:kernel" in e.missing(caps):
            from .testbed.available import missing_tools

            why = "root" if os.geteuid() != 0 else ""
            tools = missing_tools()
            why += (" and " if why and tools else "") + (f"the tools {', '.join(tools)}" if tools else "")
            fail(
                f"{e.name} runs on the kernel test bed and needs {why or 'the test bed'}: run it as root "
                "after scripts/install-kernel-deps.sh (network namespaces, tc, BPF struct_ops, iperf3)"
            )
    t0 = time.perf_counter()
    planned = plan(ready, quick)
    rs = _store(store)
    n_jobs = jobs or os.cpu_count() or 1
    reused, executed = execute_plan(planned, rs, ex)
    t1 = time.perf_counter()
    console.print(f"{len(planned)} runs planned: {reused} reused from {rs.root}/, {executed} simulated")
    outcomes = analyze(ready, planned, rs, quick, jobs=n_jobs)
    outcomes += [Outcome(e, status="needs: " + ", ".join(e.missing(caps))) for e in blocked]
    order = {e.name: i for i, e in enumerate(chosen)}
    outcomes.sort(key=lambda o: order[o.experiment.name])
    t2 = time.perf_counter()
    timing = (
        f"{executed} runs simulated ({reused} reused from the store) in {t1 - t0:.0f} s and analysed in "
        f"{t2 - t1:.0f} s of wall time with {n_jobs} processes ({ex.name} executor)."
    )
    path = write_report(outcomes, report, quick, timing)
    console.print(timing)
    console.print(verdict_table(outcomes, path, quick))


def verdict_table(outcomes, path: Path, quick: bool) -> Table:
    """The closing table: per experiment and in total, claims holding / explained /
    unexplained / not evaluated (the report's summary)."""
    from .report import QUICK_MARK, verdict_rows

    rows = verdict_rows(outcomes)
    title = f"report: {path}" + (QUICK_MARK if quick else "")
    table = Table(title=title, title_justify="left")
    table.add_column("experiment")
    table.add_column("status")
    for col in ("holds", "explained", "unexplained", "not eval."):
        table.add_column(col, justify="right")
    for _, r in rows.iterrows():
        table.add_row(
            str(r["experiment"]),
            str(r["status"]),
            *(str(int(r[v])) for v in ("holds", "explained", "unexplained", "not evaluated")),
            end_section=r["experiment"] == rows["experiment"].iloc[-2],
        )
    return table


@app.command("report")
def report_cmd(
    names: Annotated[list[str] | None, typer.Argument(help="Experiments or papers (default: all).")] = None,
    quick: Annotated[bool, typer.Option(help="Report the quick variants.")] = False,
    store: Annotated[Path | None, typer.Option(help="Result store directory.")] = None,
    out: Annotated[Path, typer.Option(help="Where to write the report.")] = Path("report"),
    jobs: Annotated[int | None, typer.Option(help="Analysis processes (default: all cores).")] = None,
) -> None:
    """Write the report from stored runs only (nothing is simulated)."""
    from . import capabilities
    from .experiments import resolve
    from .experiments.base import Outcome
    from .report import check_report_dir, write_report
    from .sweep import analyze, plan

    try:
        chosen = resolve(names or ["all"])
    except KeyError as e:
        fail(str(e.args[0]))
    if jobs is not None and jobs < 1:
        fail(f"--jobs {jobs} is not allowed; give at least 1")
    try:
        check_report_dir(out)
    except OutputError as e:
        fail(f"--out {e}")
    caps = capabilities()
    rs = _store(store)
    outcomes: dict[str, Outcome] = {}
    ready, ready_planned = [], []
    for e in chosen:
        missing = e.missing(caps)
        if missing:
            outcomes[e.name] = Outcome(e, status="needs: " + ", ".join(missing))
            continue
        planned = plan([e], quick)
        absent = sum(not rs.has(p.key) for p in planned)
        if absent:
            status = f"not run: {absent} of {len(planned)} runs missing (tcplab reproduce)"
            outcomes[e.name] = Outcome(e, status=status)
        else:
            ready.append(e)
            ready_planned += planned
    for o in analyze(ready, ready_planned, rs, quick, jobs=jobs or os.cpu_count() or 1):
        outcomes[o.experiment.name] = o
    ordered = [outcomes[e.name] for e in chosen]
    path = write_report(ordered, out, quick)
    console.print(verdict_table(ordered, path, quick))


@app.command()
def results(
    store: Annotated[Path | None, typer.Option(help="Result store directory.")] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write one table of every run to this Parquet file.")
    ] = None,
    table: Annotated[str, typer.Option(help="Table to export (flows, links, series, ...).")] = "flows",
    experiment: Annotated[str | None, typer.Option(help="Only this experiment's runs.")] = None,
) -> None:
    """List stored runs, or export them as one Parquet file (pandas, polars, DuckDB)."""
    rs = _store(store)
    if export is not None:
        try:
            n = rs.export(export, table=table, experiment=experiment)
        except ValueError as e:
            fail(str(e))
        console.print(f"wrote {n} rows of {table} to {export}")
        return
    idx = rs.index()
    if experiment and len(idx):
        idx = idx[idx["experiment"] == experiment]
    if not len(idx):
        console.print(f"no stored runs in {rs.root}/")
        return
    counts = idx.groupby("experiment").size().reset_index(name="runs")
    t = Table(title=f"{len(idx)} runs in {rs.root}/", title_justify="left")
    t.add_column("experiment")
    t.add_column("runs", justify="right")
    for _, r in counts.iterrows():
        t.add_row(str(r["experiment"]), str(r["runs"]))
    console.print(t)


# Kernel ports and the namespace test bed (python/tcplab/kernel.py, python/tcplab/testbed/).
from . import kernel as _kernel  # noqa: E402
from .testbed import cli as _testbed_cli  # noqa: E402

app.add_typer(_kernel.app, name="kernel")
app.add_typer(_testbed_cli.app, name="testbed")
app.command("compare")(_testbed_cli.compare)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        exit_interrupted()
    except SystemExit as e:  # typer turns Ctrl-C in a command into an exit
        if _interrupted(e):
            exit_interrupted()
        raise


def _interrupted(e: BaseException | None) -> bool:
    while e is not None and not isinstance(e, KeyboardInterrupt):
        e = e.__cause__ or e.__context__
    return e is not None


def exit_interrupted() -> NoReturn:
    """Ctrl-C: a short message and exit code 130 at once. Exit handlers run (they stop a
    Ray instance), but not the interpreter's teardown of pandas and Arrow, which takes most
    of a second; stored runs were each written atomically and stay."""
    err_console.print("interrupted")
    for child in multiprocessing.active_children():  # (exit handlers would wait for them)
        child.terminate()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


if __name__ == "__main__":
    main()
