"""Compact terminal views of a scenario (``tcplab validate``) and of a run's flows
(``tcplab run``), made to fit 80 columns.

User text (names of flows and nodes, file names) goes into rich ``Text`` objects, so
brackets in it are shown as typed, never read as markup. Long names wrap inside their
column; numbers never do. Tables are bounded: a scenario or run with 10,000 flows shows
the first :data:`MAX_ROWS` rows, says how many more there are and where to find them, and
summarises all of them.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

#: Rows a table shows before it summarises the rest.
MAX_ROWS = 20
#: Node names listed in a scenario's heading before "... (N in all)".
MAX_NODES = 12


def _num(x: float) -> str:
    """Three significant digits, never in exponent notation for 1e-3 <= x."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _scaled(x: float, units: tuple[tuple[float, str], ...]) -> str:
    """``x`` in the largest unit it reaches (``units`` ascending by scale); ``-`` if missing."""
    if not math.isfinite(x):
        return "-"
    if x == 0:
        return f"0 {units[0][1]}"
    for scale, suffix in reversed(units):
        if abs(x) >= scale:
            return f"{_num(x / scale)} {suffix}"
    scale, suffix = units[0]
    return f"{_num(x / scale)} {suffix}"


_RATE_UNITS = ((1.0, "b/s"), (1e3, "kb/s"), (1e6, "Mb/s"), (1e9, "Gb/s"), (1e12, "Tb/s"))
_TIME_UNITS = ((1e-6, "us"), (1e-3, "ms"), (1.0, "s"))
_BYTE_UNITS = ((1.0, "B"), (1e3, "kB"), (1e6, "MB"), (1e9, "GB"), (1e12, "TB"))


def rate(bps: float) -> str:
    """``10 Mb/s``, ``179 kb/s``, ``5.82 Mb/s``."""
    return _scaled(float(bps), _RATE_UNITS)


def seconds(s: float) -> str:
    """``23 ms``, ``100 us``, ``60 s``; ``-`` for a missing value."""
    if s is None:
        return "-"
    return "0" if s == 0 else _scaled(float(s), _TIME_UNITS)


def size(n: float) -> str:
    """``1 MB``, ``1.5 kB``."""
    return _scaled(float(n), _BYTE_UNITS)


def _table(*columns: str, numeric: tuple[str, ...] = ()) -> Table:
    """A borderless table; text columns wrap (``fold``: long names break anywhere), number
    columns keep their width and are right-aligned."""
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=(0, 1))
    for c in columns:
        if c in numeric:
            t.add_column(c, justify="right", no_wrap=True)
        else:
            t.add_column(c, overflow="fold")
    return t


def _cells(*values: Any) -> list[Text]:
    return [v if isinstance(v, Text) else Text(str(v)) for v in values]


def _more(n: int, what: str, where: str = "") -> Text:
    return Text(f"... {n:,} more {what}" + (f"; {where}" if where else ""), style="dim")


def node_list(nodes: list[str]) -> str:
    """At most :data:`MAX_NODES` names, then how many there are in all."""
    if len(nodes) <= MAX_NODES:
        return ", ".join(nodes)
    return f"{', '.join(nodes[:MAX_NODES])}, ... ({len(nodes):,} in all)"


# -- tcplab validate ---------------------------------------------------------------------


def _link_settings(link: dict[str, Any]) -> tuple:
    keys = ("rate_bps", "delay_s", "buffer", "buffer_bytes", "queue", "loss", "jitter")
    return tuple(link[k] for k in keys)


def _duplex_rows(links: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """One row per link: ``a<->b`` when a direction and the one after it are the same link
    both ways with the same settings (the engine adds a duplex link's two directions one
    after the other), else one row per direction."""
    rows, i = [], 0
    while i < len(links):
        a, b = links[i], links[i + 1] if i + 1 < len(links) else None
        if (
            b is not None
            and (b["from"], b["to"]) == (a["to"], a["from"])
            and _link_settings(a) == _link_settings(b)
        ):
            rows.append((f"{a['from']}<->{a['to']}", a))
            i += 2
        else:
            rows.append((f"{a['from']}->{a['to']}", a))
            i += 1
    return rows


def _link_extras(link: dict[str, Any]) -> str:
    extras = []
    if link["buffer_bytes"] is not None:
        extras.append(f"at most {size(link['buffer_bytes'])}")
    if link["loss"]:
        extras.append(f"{link['loss']} loss")
    if link["jitter"]:
        extras.append(f"{link['jitter']} jitter")
    return ", ".join(extras)


def links_table(topology: dict[str, Any]) -> list[RenderableType]:
    """The links of an expanded topology (``_engine.topology``), then its WLANs."""
    rows = [
        (
            name,
            rate(link["rate_bps"]),
            seconds(link["delay_s"]),
            link["buffer"],
            link["queue"],
            _link_extras(link),
        )
        for name, link in _duplex_rows(topology["links"])
    ]
    for w in topology["wlans"]:
        stations = w["stations"]
        rows.append(
            (
                f"{w['ap']}~{stations[0]}..{stations[-1]}" if stations else w["ap"],
                rate(w["rate_bps"]),
                "-",
                w["ap_buffer"],
                w["ap_queue"],
                f"802.11a, {len(stations)} stations",
            )
        )
    with_extras = any(r[5] for r in rows)
    columns = ("link", "rate", "delay", "buffer", "queue") + (("notes",) if with_extras else ())
    t = _table(*columns, numeric=("rate", "delay", "buffer"))
    for r in rows[:MAX_ROWS]:
        t.add_row(*_cells(*r[: len(columns)]))
    out: list[RenderableType] = [t]
    if len(rows) > MAX_ROWS:
        out.append(_more(len(rows) - MAX_ROWS, "links"))
    return out


def _cc_text(cc: Any) -> str:
    """``vegas`` or ``vegas(alpha=2, beta=4)``."""
    if isinstance(cc, dict):
        params = ", ".join(f"{k}={v}" for k, v in cc.items() if k != "name")
        return f"{cc['name']}({params})" if params else str(cc["name"])
    return "-" if cc is None else str(cc)


def _start_stop(flow: dict[str, Any]) -> tuple[str, str]:
    if flow.get("schedule"):
        periods = flow["schedule"]
        return f"on {seconds(periods[0][0])}", f"{len(periods)} on periods"
    start = flow.get("start", 0)
    start_text = (
        f"U[{seconds(start['uniform'][0])}, {seconds(start['uniform'][1])}]"
        if isinstance(start, dict)
        else seconds(start)
    )
    stop = seconds(flow["stop"]) if "stop" in flow else "-"
    if "bytes" in flow:
        stop = f"after {size(flow['bytes'])}"
    return start_text, stop


def flow_entries_table(flows: list[dict[str, Any]]) -> list[RenderableType]:
    """The ``[[flows]]`` entries of a canonical scenario document."""
    t = _table("flow", "n", "cc", "path", "start", "stop", numeric=("n", "start"))
    for i, f in enumerate(flows[:MAX_ROWS]):
        cc = f"cbr {rate(f['rate'])}" if f.get("kind") == "cbr" else _cc_text(f.get("cc"))
        t.add_row(
            *_cells(
                f.get("name", f"flow{i}"), f"{f['count']:,}", cc, f"{f['src']}->{f['dst']}", *_start_stop(f)
            )
        )
    out: list[RenderableType] = [t]
    if len(flows) > MAX_ROWS:
        out.append(_more(len(flows) - MAX_ROWS, "flow entries"))
    return out


def scenario_view(label: str, canonical_toml: str, topology: dict[str, Any]) -> Group:
    """What ``tcplab validate`` prints: a heading, the links and the flow entries."""
    doc = tomllib.loads(canonical_toml)
    sim, flows = doc["simulation"], doc["flows"]
    total = sum(f["count"] for f in flows)
    heading = Text.assemble(
        (label, "bold"),
        f": {doc['topology']['kind']} topology, {seconds(sim['duration'])} simulated, seed {sim['seed']}",
    )
    nodes = Text(f"{_plural(len(topology['nodes']), 'node')}: {node_list(topology['nodes'])}")
    entries = f" in {_plural(len(flows), 'entry', 'entries')}" if total != len(flows) else ""
    return Group(
        heading,
        nodes,
        *links_table(topology),
        Text(f"{_plural(total, 'flow')}{entries}:"),
        *flow_entries_table(flows),
    )


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


# -- tcplab run ----------------------------------------------------------------------------


def _flow_rows(flows: pd.DataFrame, udp: pd.DataFrame | None) -> pd.DataFrame:
    """TCP and UDP flows as one frame of the run table's columns, in id order."""
    drop_cols = [c for c in flows.columns if c.startswith("data_drops_")]
    tcp = pd.DataFrame(
        {
            "id": flows["id"],
            "flow": flows["name"],
            "cc": flows["cc"],
            "path": flows["src"] + "->" + flows["dst"],
            "goodput": flows["goodput_bps"],
            "retx": flows["retransmissions"],
            "RTOs": flows["timeouts"],
            "drops": flows[drop_cols].sum(axis=1) if drop_cols else 0,
            "RTT": flows["mean_rtt"],
        }
    )
    if udp is None or not len(udp):
        return tcp
    udp_drops = [c for c in udp.columns if c.startswith("drops_")]
    cbr = pd.DataFrame(
        {
            "id": udp["id"],
            "flow": udp["name"],
            "cc": "cbr",
            "path": udp["src"] + "->" + udp["dst"],
            "goodput": udp["throughput_bps"],
            "retx": np.nan,
            "RTOs": np.nan,
            "drops": udp[udp_drops].sum(axis=1) if udp_drops else 0,
            "RTT": np.nan,
        }
    )
    return pd.concat([tcp, cbr], ignore_index=True).sort_values("id", kind="stable")


def _count(x: float) -> str:
    return "-" if pd.isna(x) else f"{int(x):,}"


def run_view(flows: pd.DataFrame, udp_flows: pd.DataFrame | None, heading: str, out: Path | None) -> Group:
    """What ``tcplab run`` prints: the heading, one row per flow (TCP and UDP; at most
    :data:`MAX_ROWS`), a line for all flows together, and where the rest is."""
    rows = _flow_rows(flows, udp_flows)
    t = _table(
        "flow",
        "cc",
        "path",
        "goodput",
        "retx",
        "RTOs",
        "drops",
        "RTT",
        numeric=("goodput", "retx", "RTOs", "drops", "RTT"),
    )
    for r in rows.head(MAX_ROWS).itertuples(index=False):
        t.add_row(
            *_cells(
                r.flow,
                r.cc,
                r.path,
                rate(r.goodput),
                _count(r.retx),
                _count(r.RTOs),
                _count(r.drops),
                seconds(r.RTT),
            )
        )
    parts: list[RenderableType] = [Text(heading), t]
    n = len(rows)
    if n > MAX_ROWS:
        tables = "flows.parquet" + (", udp_flows.parquet" if udp_flows is not None and len(udp_flows) else "")
        where = (
            f"per-flow results in {out}/{tables}" if out else f"per-flow results with --out DIR ({tables})"
        )
        parts.append(_more(n - MAX_ROWS, "flows", where))
    if n > 1:
        g = rows["goodput"]
        parts.append(
            Text(
                f"all {n:,} flows: goodput {rate(g.sum())} in all, per flow min {rate(g.min())}, "
                f"median {rate(g.median())}, max {rate(g.max())}; {_count(rows['retx'].sum())} retx, "
                f"{_count(rows['RTOs'].sum())} RTOs, {_count(rows['drops'].sum())} drops; "
                f"mean RTT {seconds(rows['RTT'].mean())}"
            )
        )
    return Group(*parts)


# -- tcplab algorithms --params ---------------------------------------------------------


def params_view(sets: list[dict[str, Any]]) -> Group:
    """One table per parameter set: key, default, meaning (with each named value)."""
    from .cc_params import default_text, set_title, value_text

    parts: list[RenderableType] = []
    for s in sets:
        parts.append(Text.assemble((set_title(s), "bold"), f" ({s['name']})"))
        t = _table("key", "default", "meaning")
        for p in s["params"]:
            meaning = Text(p["doc"])
            for name, doc in p["values"]:
                meaning.append(f"\n{value_text(name)}: ", "bold")
                meaning.append(doc)
            key = p["key"] if s["algorithms"] else p["key"].split(".")[-1]  # the title names the table
            t.add_row(Text(key), Text(default_text(p, s["algorithms"])), meaning)
        parts += [t, Text("")]
    return Group(*parts)
