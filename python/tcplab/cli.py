"""The ``tcplab`` command line."""

from __future__ import annotations

import atexit
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.table import Table
from rich.text import Text

from .console import console, err_console, status
from .destinations import writable_dir, writable_file
from .errors import OutputError, ScenarioError, SimulationError
from .exits import EXIT_ENGINE_BUG, EXIT_RUN_FAILED, Commands, fail
from .runner import SEED_MAX, as_scenario, run
from .tables import SeriesFiles
from .views import run_view, scenario_view

app = typer.Typer(
    help="tcplab: a congestion-control laboratory. Run scenarios, reproduce the papers' experiments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstrings' paragraphs are reflowed to the terminal's width
    cls=Commands,
)


def _version(value: bool) -> None:
    """``--version``: the package's version and the engine's, with the commit it was built from."""
    if not value:
        return
    from . import ENGINE_COMMIT, ENGINE_VERSION, __version__

    commit = f", commit {ENGINE_COMMIT}" if ENGINE_COMMIT else ""
    console.print(f"tcplab {__version__} (engine {ENGINE_VERSION}{commit})", highlight=False, markup=False)
    raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """tcplab: a congestion-control laboratory. Run scenarios, reproduce the papers' experiments."""


@app.command("run")
def run_cmd(
    file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    seed: Annotated[
        int | None, typer.Option(help="Override the scenario's seed.", min=0, max=SEED_MAX)
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Directory for Parquet tables.")] = None,
) -> None:
    """Run one scenario, print a per-flow table and optionally write Parquet tables.

    With --out the time series are written while the run goes on, so long runs do not hold
    them in memory."""
    if out is not None:
        writable_dir(out, "--out")
    try:
        scenario = as_scenario(file)
        with status(f"simulating {file} ...", spinner="dots"):
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
        fail(str(e), code=EXIT_ENGINE_BUG)
    except OutputError as e:
        fail(f"{e} (pcap traces need --out DIR)")
    if out is not None:  # results reach the disk before anything is printed
        written = [*series.paths.values(), *res.to_parquet(out, exclude=series.paths)]
        scenario.save(out / "scenario.toml")
    m = res.meta
    jain = res.jain_index()
    title = (
        f"{file.name}: {m['duration']:g} s simulated in {wall:.2f} s wall, seed {m['seed']}, "
        f"goodput over [{m['measure'][0]:g}, {m['measure'][1]:g}] s, Jain index "
        + ("undefined (no goodput)" if math.isnan(jain) else f"{jain:.3f}")
    )
    console.print(run_view(res.flows, res.udp_flows, title, out))
    if out is not None:
        console.print(f"wrote {len(written)} tables and scenario.toml to {out}/")


@app.command()
def validate(file: Annotated[Path, typer.Argument(help="Scenario TOML file.")]) -> None:
    """Check a scenario file; print its topology (nodes, links) and flows, or what is wrong."""
    from . import _engine

    try:
        canonical = as_scenario(file).validate()
    except ScenarioError as e:
        fail(f"{file}: {e}")
    console.print(scenario_view(str(file), canonical, _engine.topology(canonical)))
    console.print("valid", style="green", markup=False, highlight=False)


@app.command()
def algorithms(
    names: Annotated[list[str] | None, typer.Argument(help="Only these algorithms (with --params).")] = None,
    params: Annotated[
        bool, typer.Option("--params", help="Each algorithm's parameters: key, default and meaning.")
    ] = False,
) -> None:
    """List the congestion-control algorithms, or with --params their parameters.

    Parameters are set in a scenario as `cc = { name = "vegas", alpha = 2 }`; the same
    tables are in docs/scenario.md."""
    from . import algorithms as known
    from .cc_params import parameter_sets
    from .names import unknown_name
    from .views import params_view

    for n in names or []:
        if n not in known():
            fail(unknown_name("algorithm", n, known(), ", ".join(known())))
    if not params:
        for n in names or known():
            console.print(n)
        return
    console.print(params_view(parameter_sets(names)))


def _store(path: Path | None):
    from .store import DEFAULT_ROOT, ResultStore

    return ResultStore(path or DEFAULT_ROOT)


def _existing_store(path: Path | None, need_runs: bool):
    """The store to read: a ``--store`` that is not a directory is an error (a typo must not
    read as "nothing stored"), and so, with ``need_runs``, is a store without runs."""
    rs = _store(path)
    if path is not None and not path.is_dir():
        what = "is not a directory" if path.exists() else "does not exist"
        fail(f"--store {path} {what}; a result store is the directory tcplab reproduce --store writes")
    if need_runs and not rs.run_keys():
        fail(f"no stored runs in {rs.root}/: run tcplab reproduce (with --store {rs.root}) first")
    return rs


def _experiment_filter(name: str, stored: list[str]):
    """Which stored experiment names ``--experiment name`` selects: a paper (all its
    experiments), or an experiment or ablation (``name@key``) that is stored or registered.
    An unknown name is an error naming the close matches."""
    from .experiments import PAPERS

    if name in PAPERS:
        return lambda stored_name: stored_name.startswith(f"{name}/")
    if name in stored:
        return lambda stored_name: stored_name == name
    from .experiments import all_experiments  # imports every experiment: only when needed
    from .experiments.ablation import SEP
    from .names import unknown_name

    experiments = [e.name for e in all_experiments()]
    ablations = [f"{e.name}{SEP}{a.key}" for e in all_experiments() for a in e.ablations]
    if name in {*experiments, *ablations}:
        return lambda stored_name: stored_name == name
    known = (
        f"the papers {', '.join(PAPERS)}; the experiments {', '.join(experiments)} "
        f"(tcplab experiments); and their ablations, <experiment>{SEP}<key>"
    )
    fail(unknown_name("experiment", name, [*PAPERS, *experiments, *ablations, *stored], known))


@app.command()
def experiments() -> None:
    """List every experiment of the five papers with its status on this build.

    Papers are shown by number (000-004, as in the documentation) and short name (as on this
    command line); docs/papers.md maps one to the other."""
    from . import capabilities
    from .experiments import PAPERS, all_experiments
    from .papers import label

    caps = capabilities()
    table = Table(title="Experiments (tcplab reproduce NAME | PAPER | all)", title_justify="left")
    for col in ("name", "paper", "title", "status"):
        table.add_column(col)
    for e in all_experiments():
        missing = e.missing(caps)
        status = Text("ready", "green") if not missing else Text(f"needs: {', '.join(missing)}", "yellow")
        if e.on_kernel:
            status.append(f" · kernel test bed: root and --kernel, {e.kernel_time or 'real time'}")
            if archived := e.archived_kernel_runs(quick=False):
                status.append(f" · without --kernel: against {archived} archived kernel runs")
        table.add_row(Text(e.name), Text(label(e.paper)), Text(e.title), status)
    console.print(table)
    console.print("papers (docs/papers.md):", markup=False, highlight=False)
    for short, title in PAPERS.items():
        console.print(f"  {label(short)}: {title}", markup=False, highlight=False)


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
    kernel: Annotated[
        bool,
        typer.Option(
            help="Also run the experiments on the kernel test bed (root; real time: linux/conformance "
            "takes about 4 h, code/linux-fig19 about 65 min; `tcplab experiments` lists each)."
        ),
    ] = False,
) -> None:
    """Run experiments (reusing stored runs) and write the reproduction report."""
    from . import capabilities
    from .executors import make_executor
    from .experiments import resolve
    from .experiments.base import Outcome
    from .report import check_report_dir, write_report
    from .store import DEFAULT_ROOT
    from .sweep import analyze, execute_plan, plan

    if jobs is not None and jobs < 1:
        fail(f"--jobs {jobs} is not allowed; give at least 1")
    try:
        check_report_dir(report)  # (it will be replaced whole)
    except OutputError as e:
        fail(f"--report {e}")
    try:
        chosen = resolve(names)
        ex = make_executor(executor, jobs, address)
    except (KeyError, ValueError, RuntimeError) as e:
        fail(str(e.args[0] if e.args else e))
    # Without --kernel, an experiment whose kernel runs are archived compares its simulated
    # runs with the archive (testbed/archive.py) instead of being left out.
    archived = (
        {} if kernel else {e.name: n for e in chosen if e.on_kernel and (n := e.archived_kernel_runs(quick))}
    )
    if not kernel:
        named = [e.name for e in chosen if e.on_kernel and e.name in names and e.name not in archived]
        if named:
            e = next(e for e in chosen if e.name == named[0])
            fail(
                f"{e.name} runs on the kernel test bed (root, {e.kernel_time or 'real time'}): add --kernel "
                "to run it"
            )
    writable_dir(report, "--report")
    writable_dir(store or DEFAULT_ROOT, "--store")
    caps = capabilities()
    skipped = [] if kernel else [e for e in chosen if e.on_kernel and e.name not in archived]

    def lacks(e) -> list[str]:
        # (An archived experiment's simulated side needs no test bed.)
        return [m for m in e.missing(caps) if not (e.name in archived and m == "testbed:kernel")]

    ready = [e for e in chosen if not lacks(e) and e not in skipped]
    blocked = [e for e in chosen if lacks(e) and e not in skipped]
    for e in blocked:
        if e.explicit and "testbed:kernel" in lacks(e):
            from .testbed.available import missing_tools

            why = "root" if os.geteuid() != 0 else ""
            tools = missing_tools()
            why += (" and " if why and tools else "") + (f"the tools {', '.join(tools)}" if tools else "")
            fail(
                f"{e.name} runs on the kernel test bed and needs {why or 'the test bed'}: run it as root "
                "after scripts/install-kernel-deps.sh (network namespaces, tc, BPF struct_ops)"
            )
    t0 = time.perf_counter()
    planned = plan(ready, quick)
    for name, n in archived.items():
        console.print(
            f"{name}: kernel runs from the store where it has them, else from the {n} archived ones; "
            "entries with neither are left out (--kernel measures them afresh, as root)"
        )
    rs = _store(store)
    n_jobs = jobs or os.cpu_count() or 1
    failures: list[str] = []
    # Without --kernel nothing runs on the bed, but kernel runs already stored are analysed.
    to_run = planned if kernel else [p for p in planned if p.backend == "sim"]
    reused, executed = execute_plan(to_run, rs, ex, failures=failures)
    if not kernel:
        planned = [p for p in planned if p.backend == "sim" or rs.has(p.key)]
    t1 = time.perf_counter()
    console.print(f"{len(planned)} runs planned: {reused} reused from {rs.root}/, {executed} simulated")
    outcomes = analyze(ready, planned, rs, quick, jobs=n_jobs)
    outcomes += [Outcome(e, status="needs: " + ", ".join(lacks(e))) for e in blocked]
    outcomes += [Outcome(e, status="not run: kernel test bed (--kernel)") for e in skipped]
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
    if failures:
        fail(
            f"{len(failures)} kernel run(s) failed and were not stored (the report leaves them out; "
            f"the same command runs them again): {failures[0]}",
            EXIT_RUN_FAILED,
        )


def verdict_table(outcomes, path: Path, quick: bool) -> Table:
    """The closing table: per experiment and in total, claims holding / explained /
    unexplained / undecided / not evaluated (the report's summary)."""
    from .experiments.base import VERDICTS
    from .report import QUICK_MARK, verdict_rows

    rows = verdict_rows(outcomes)
    title = f"report: {path}" + (QUICK_MARK if quick else "")
    table = Table(title=title, title_justify="left")
    table.add_column("experiment")
    table.add_column("status")
    for col in ("holds", "explained", "unexplained", "undecided", "not eval."):
        table.add_column(col, justify="right")
    for _, r in rows.iterrows():
        table.add_row(
            str(r["experiment"]),
            str(r["status"]),
            *(str(int(r[v])) for v in VERDICTS),
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
    rs = _existing_store(store, need_runs=True)  # before --out is created: nothing to report
    caps = capabilities()
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
    if not ready and len(outcomes) > sum(o.status.startswith("needs") for o in ordered):
        other = "without --quick, leave out --quick" if quick else "with --quick, add --quick"
        err_console.print(
            f"note: no experiment has all its runs in {rs.root}/; if they were reproduced {other}",
            markup=False,
            highlight=False,
        )


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
    if export is not None:
        writable_file(export, "--export")
    rs = _existing_store(store, need_runs=False)
    idx = rs.index()
    stored = sorted(set(idx["experiment"])) if len(idx) else []
    selects = _experiment_filter(experiment, stored) if experiment else None
    if export is not None:
        try:
            n = rs.export(export, table=table, experiment=selects)
        except ValueError as e:
            fail(str(e))
        console.print(f"wrote {n} rows of {table} to {export}", markup=False, highlight=False)
        return
    if selects is not None and len(idx):
        idx = idx[idx["experiment"].map(selects)]
    if not len(idx):
        which = f" of {experiment}" if experiment else ""
        console.print(f"no stored runs{which} in {rs.root}/", markup=False, highlight=False)
        return
    counts = idx.groupby("experiment").size().reset_index(name="runs")
    t = Table(title=f"{len(idx)} runs in {rs.root}/", title_justify="left")
    t.add_column("experiment")
    t.add_column("runs", justify="right")
    for _, r in counts.iterrows():
        t.add_row(Text(str(r["experiment"])), str(r["runs"]))
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
