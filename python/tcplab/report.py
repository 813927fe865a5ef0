"""The reproduction report: a static HTML page and Markdown, figures in PNG and SVG."""

from __future__ import annotations

import html
import math
import time
from pathlib import Path

import pandas as pd

from .experiments.base import VERDICTS, Claim, Outcome
from .experiments.causes import CAUSES
from .papers import NUMBERS, heading
from .publish import check_replaceable, replaced_dir

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#1d232b;line-height:1.45}
h1{font-size:1.8em}h2{border-bottom:2px solid #d8dee6;padding-bottom:.2em;margin-top:2.2em}
h3{margin-top:1.8em}table{border-collapse:collapse;margin:.8em 0;font-size:.88em}
th,td{border:1px solid #cfd6de;padding:.25em .6em;text-align:right}th{background:#f0f3f6}
td:first-child,th:first-child{text-align:left}.status{font-weight:600;padding:.1em .5em;border-radius:.3em}
.ok{background:#dff3e4;color:#135c2a}.needs{background:#fdf0d5;color:#7a4b00}.fail{background:#fbe0e0;color:#8a1c1c}
.claims li{margin:.2em 0}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #e3e7ec}
figcaption{font-size:.9em;color:#4b5563}
.setup{background:#f7f9fb;border-left:4px solid #9fb3c8;padding:.5em 1em}
.note{background:#fff8e6;border-left:4px solid #e0b04a;padding:.4em 1em}nav a{margin-right:1em}
"""


def _fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.3e}"
    return str(v)


def md_table(df: pd.DataFrame) -> str:
    cols = [_md_cell(str(c)) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(_md_cell(_fmt(v)) for v in row.to_numpy()) + " |")
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    """A cell's text with its pipes escaped (option lists such as "a" | "b" would split it)."""
    return text.replace("|", "\\|")


def html_table(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row.to_numpy()) + "</tr>"
        for _, row in df.iterrows()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


QUICK_MARK = " (quick run)"

#: The mark shown before a claim of each verdict.
MARKS = {"holds": "✓", "explained": "◐", "unexplained": "✗", "undecided": "≈", "not evaluated": "?"}


def verdict_rows(outcomes: list[Outcome]) -> pd.DataFrame:
    """Per experiment and in total: how many claims hold, are explained, unexplained, undecided
    or were not evaluated (the report's summary and the CLI's closing table)."""
    rows = [{"experiment": o.experiment.name, "status": o.status, **o.verdicts()} for o in outcomes]
    total = {"experiment": "total", "status": ""}
    for v in VERDICTS:
        total[v] = sum(r[v] for r in rows)
    return pd.DataFrame([*rows, total], columns=["experiment", "status", *VERDICTS])


def cause_rows(outcomes: list[Outcome]) -> pd.DataFrame:
    """The root-cause table: per cause, the option, the ablation runs and the claims it explains."""
    rows = []
    for key, c in CAUSES.items():
        explained = [
            (o.experiment.name, cl)
            for o in outcomes
            for cl in o.claims
            if cl.cause == key and cl.passed is False
        ]
        ablations = [(o.experiment.name, r) for o in outcomes for r in o.ablations if r.ablation.cause == key]
        if not explained and not ablations:
            continue
        rows.append(
            {
                "cause": c.title,
                "option": c.option,
                "ablation runs": sum(r.runs for _, r in ablations),
                "ablations": ", ".join(f"{n}@{r.ablation.key}" for n, r in ablations) or "–",
                "claims explained": len(explained),
                "experiments": ", ".join(sorted({n for n, _ in explained})) or "–",
            }
        )
    unexplained = [o.experiment.name for o in outcomes for cl in o.claims if cl.verdict == "unexplained"]
    if unexplained:
        rows.append(
            {
                "cause": "(none found)",
                "option": "–",
                "ablation runs": 0,
                "ablations": "–",
                "claims explained": 0,
                "experiments": ", ".join(sorted(set(unexplained))) + f" ({len(unexplained)} unexplained)",
            }
        )
    return pd.DataFrame(rows)


def claims_heading(paper: str) -> str:
    """What an experiment's claims are: a numbered paper's, or tcplab's own hypotheses
    (``linux/...``, ``beyond/...``), which no paper states."""
    return "Claims of the paper" if paper in NUMBERS else "tcplab's own claims (no paper states them)"


def _claim_line(c: Claim) -> str:
    """A claim's verdict and evidence in one sentence (plain text; escaped by the caller)."""
    parts = [c.verdict]
    if c.detail:
        parts[0] += f": {c.detail}"
    if c.cause:
        parts.append(f"cause: {CAUSES[c.cause].title}; {c.explanation}")
    if c.tried:
        parts.append("tried: " + "; ".join(c.tried))
    return " — ".join(parts)


#: What a report directory holds (it is replaced as a whole: publish.py).
REPORT_ENTRIES = ("index.html", "report.md", "figures")


def check_report_dir(out_dir: str | Path) -> None:
    """Raises OutputError if ``out_dir`` cannot take a report (before the work, not after)."""
    check_replaceable(out_dir, frozenset(REPORT_ENTRIES))


def write_report(
    outcomes: list[Outcome], out_dir: str | Path, quick: bool, timing: str | None = None
) -> Path:
    """Writes the report into ``out_dir``, which it replaces once complete (two writers never
    leave a mix: publish.py); returns the HTML path."""
    with replaced_dir(out_dir, REPORT_ENTRIES) as staging:
        _write_report_files(outcomes, staging, quick, timing)
    return Path(out_dir) / "index.html"


def _write_report_files(outcomes: list[Outcome], out_dir: Path, quick: bool, timing: str | None) -> Path:
    """Writes index.html, report.md and figures/; returns the HTML path. ``timing`` is a sentence
    on how long the reproduction took, printed under the title."""
    out = Path(out_dir)
    figdir = out / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    mode = (
        "quick (reduced repetitions and durations)"
        if quick
        else "full (the papers' repetitions and durations)"
    )
    md = [f"# tcplab reproduction report\n\nGenerated {stamp}; mode: {mode}."]
    if timing:
        md.append(timing)
    h = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>tcplab reproduction report</title>"
        f"<style>{CSS}</style></head><body><h1>tcplab reproduction report</h1>"
        f"<p>Generated {stamp}; mode: {html.escape(mode)}."
        + (f" {html.escape(timing)}" if timing else "")
        + "</p>"
    ]
    summary = verdict_rows(outcomes)
    total = summary.iloc[-1]
    totals = ", ".join(f"{int(total[v])} {v}" for v in VERDICTS)
    tag = "quick run: " if quick else ""
    md += [f"**Claims ({tag}{totals})**", "## Summary", md_table(summary)]
    h += [f"<p><b>Claims ({html.escape(tag + totals)})</b></p>", "<h2>Summary</h2>", html_table(summary)]
    causes = cause_rows(outcomes)
    if len(causes):
        intro = (
            "Each failing claim is traced to a cause by an ablation: the same experiment with one "
            "option changed, under which the claim holds; or by the arithmetic of the paper's own numbers."
        )
        md += ["## Root causes of failing claims", intro, md_table(causes)]
        h += ["<h2 id='causes'>Root causes of failing claims</h2>", f"<p>{intro}</p>", html_table(causes)]

    #: Every table, figure and claim list of a quick run says so (its numbers are not the papers').
    mark = QUICK_MARK if quick else ""
    by_paper: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_paper.setdefault(o.experiment.name.split("/")[0], []).append(o)
    for paper, items in by_paper.items():
        title = heading(paper)
        md.append(f"## {title}")
        h.append(f"<h2 id='{paper}'>{html.escape(title)}</h2>")
        for o in items:
            e = o.experiment
            anchor = e.name.replace("/", "-")
            cls = "ok" if o.status == "ok" else ("needs" if o.status.startswith("needs") else "fail")
            md.append(f"### {e.name}: {e.title}\n\nStatus: **{o.status}**\n\n{e.setup}")
            h.append(
                f"<h3 id='{anchor}'>{html.escape(e.name)}: {html.escape(e.title)} "
                f"<span class='status {cls}'>{html.escape(o.status)}</span></h3>"
                f"<div class='setup'>{html.escape(e.setup)}</div>"
            )
            for fig in o.figures:
                base = f"{anchor}-{fig.name}"
                for fmt, data in fig.render().items():
                    (figdir / f"{base}.{fmt}").write_bytes(data)
                caption = fig.caption + mark
                md.append(f"![{caption}](figures/{base}.png)\n\n*{caption}*")
                h.append(
                    f"<figure><img src='figures/{base}.svg' alt='{html.escape(caption)}'>"
                    f"<figcaption>{html.escape(caption)}</figcaption></figure>"
                )
            if o.comparison is not None and len(o.comparison):
                md += [f"Published beside ours{mark}:", md_table(o.comparison)]
                h += [f"<p><b>Published beside ours{mark}</b></p>", html_table(o.comparison)]
            for name, table in o.tables.items():
                md += [f"{name}{mark}:", md_table(table)]
                h += [f"<p><b>{html.escape(name + mark)}</b></p>", html_table(table)]
            if o.claims:
                md.append(f"{claims_heading(e.paper)}, checked against our data{mark}:")
                h.append("<ul class='claims'>")
                for c in o.claims:
                    sign, line = MARKS[c.verdict], _claim_line(c)
                    md.append(f"- {sign} {c.text} ({line})")
                    h.append(f"<li>{sign} {html.escape(c.text)} <i>({html.escape(line)})</i></li>")
                h.append("</ul>")
            for r in o.ablations:
                line = (
                    f"Ablation {r.ablation.change} ({r.runs} runs): {len(r.flipped)} failing claim(s) hold "
                    f"with it, {len(r.unchanged)} do not."
                )
                md.append(f"> {line}")
                h.append(f"<p class='note'>{html.escape(line)}</p>")
            for n in o.notes:
                md.append(f"> {n}")
                h.append(f"<p class='note'>{html.escape(n)}</p>")
    h.append("</body></html>")
    (out / "report.md").write_text("\n\n".join(md) + "\n")
    path = out / "index.html"
    path.write_text("\n".join(h))
    return path
