#!/usr/bin/env python3
"""Mutation check of the kernel ports: how many planted one-line changes to the BPF
programs do the conformance vectors catch?

Each mutant is one change to one line of bpf/ (a comparison's boundary or sense, a
constant one up or down, && and || swapped, a ! dropped, + and - swapped, an if forced
true or false, a statement deleted), plus the changes issue 19 names (CODE's epsilon,
NewVegas's <=, Vegas+'s count, Vegas-A's rules, every cwnd-limited check, undo_cwnd).
For each, the ports whose build includes the changed file are compiled natively against
bpf/mock (bpf/Makefile's harness rule) and replay their vectors (tests/vectors/); the
mutant is caught when any replay fails. Mutants that do not compile are left out of the
count, and so are the equivalent ones listed in EQUIVALENT with the reason no input can
tell them apart (they are still run: one that is caught is reported as wrongly listed).
Constants of the representation (REPRESENTATION) are not mutated. Ports and their headers
come from the manifest, bpf/ports.toml.

Slow (a few minutes: one compile per mutant and port), so not part of CI; CI replays the
vectors against the unchanged programs (tests/test_kernel.py).

usage: .venv/bin/python scripts/mutate-bpf.py [--jobs N] [--only TEXT] [--docs]
  --only TEXT   only mutants whose description contains TEXT
  --docs        write the result table into docs/kernel.md (between its mutation markers)
Exit status 1 if fewer than 90 % are caught, a named mutant survives or a listed
equivalent one is caught; 2 if the EQUIVALENT list names mutants the sources no longer
give."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _kernel_ports():
    """python/tcplab/kernel_ports.py, the manifest's reader (standard library only, so
    loaded by path: this script runs without the engine)."""
    spec = importlib.util.spec_from_file_location(
        "kernel_ports", ROOT / "python" / "tcplab" / "kernel_ports.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel_ports"] = module
    spec.loader.exec_module(module)
    return module


BPF = ROOT / "bpf"
VECTORS = ROOT / "tests" / "vectors"
DOC = ROOT / "docs" / "kernel.md"
TARGET = 0.90

# Issue 19's planted changes: (file, exact text on one line, replacement, what it is[,
# which of the lines holding that text: 0 = the first]).
NAMED = [
    ("tl_code.c", "#define TL_SCALE_NUM 17", "#define TL_SCALE_NUM 18", "CODE's epsilon 17/25 -> 18/25"),
    ("tl_code.c", "#define TL_SCALE_DEN 25", "#define TL_SCALE_DEN 24", "CODE's epsilon 17/25 -> 17/24"),
    ("tl_code.c", "#define TL_INCREASE 2", "#define TL_INCREASE 1", "CODE's threshold increase 2 -> 1"),
    (
        "tl_vegas_family.h",
        "if (rtt > ca->prev_rtt && ca->cwnd_fp <= ca->prev_cwnd_fp)",
        "if (rtt > ca->prev_rtt && ca->cwnd_fp < ca->prev_cwnd_fp)",
        "NewVegas: W <= W_old turned <",
        0,
    ),
    (
        "tl_vegas_family.h",
        "if (rtt <= ca->prev_rtt && ca->alpha_fp > TL_ALPHA0)",
        "if (rtt < ca->prev_rtt && ca->alpha_fp > TL_ALPHA0)",
        "NewVegas: RTT <= RTT_old turned <",
    ),
    ("tl_vegas_plus.c", "#define TL_COUNT_MAX 8", "#define TL_COUNT_MAX 9", "Vegas+'s count_max 8 -> 9"),
    ("tl_vegas_family.h", "\t\t\tca->count++;", "\t\t\tca->count += 2;", "Vegas+'s count + 2"),
    (
        "tl_vegas_family.h",
        "if (rtt > ca->prev_rtt && ca->cwnd_fp <= ca->prev_cwnd_fp)",
        "if (rtt > ca->prev_rtt && ca->cwnd_fp < ca->prev_cwnd_fp)",
        "Vegas+'s count: W <= W_old turned <",
        1,
    ),
    (
        "tl_vegas_family.h",
        "else if (rtt < ca->prev_rtt && ca->count)",
        "else if (rtt <= ca->prev_rtt && ca->count)",
        "Vegas+'s count: RTT < RTT_old turned <=",
    ),
    ("tl_vegas_family.h", "\t\tca->count /= 2;", "\t\tca->count /= 4;", "Vegas+'s count quartered on a loss"),
    (
        "tl_vegas_family.h",
        "\tif (kind == TL_LOSS_TIMEOUT)\n",
        "\tif (0)\n",
        "Vegas+'s count halved instead of reset on a timeout",
    ),
    (
        "tl_vegas_family.h",
        "if (!ca->aggressive && ca->count >= TL_COUNT_MAX)",
        "if (!ca->aggressive && ca->count > TL_COUNT_MAX)",
        "Vegas+: count >= count_max turned >",
    ),
    (
        "tl_vegas_family.h",
        "\t\treturn above_alpha0 ? 0 : 1;",
        "\t\treturn above_alpha0 ? 1 : 1;",
        "Vegas-A: no decrease below alpha when alpha > alpha0",
    ),
    (
        "tl_vegas_family.h",
        "\t\tif (above_alpha0 && rose)",
        "\t\tif (above_alpha0 || rose)",
        "Vegas-A: rose && turned ||",
    ),
    (
        "tl_vegas_family.h",
        "\t\tif (above_alpha0)\n",
        "\t\tif (1)\n",
        "Vegas-A: thresholds fall above beta even at alpha0",
    ),
    (
        "tl_vegas_family.h",
        "\t\tif (above_alpha0)\n",
        "\t\tif (0)\n",
        "Vegas-A: thresholds never fall above beta",
    ),
    ("tl_common.h", "\tif (!limited)\n", "\tif (0)\n", "cwnd-limited check: tl_reno_increase"),
    (
        "tl_vegas_family.h",
        "\t\tif (step > 0 && !limited)",
        "\t\tif (0)",
        "cwnd-limited check: Vegas family's once-per-round increase",
    ),
    (
        "tl_vegas_family.h",
        "\t\tif (ca->ss_growing && limited)",
        "\t\tif (ca->ss_growing)",
        "cwnd-limited check: Vegas family's slow start",
    ),
    ("tl_veno.c", "\tif (!limited)\n", "\tif (0)\n", "cwnd-limited check: Veno"),
    (
        "tl_kernel.h",
        "\t\treturn tp->snd_cwnd < 2 * tp->max_packets_out;",
        "\t\treturn 1;",
        "cwnd-limited check: tl_cwnd_limited in slow start",
    ),
    ("tl_kernel.h", "\treturn tp->is_cwnd_limited;", "\treturn 1;", "cwnd-limited check: tl_cwnd_limited"),
    (
        "tl_common.h",
        "return tl_max_u32(tp->snd_cwnd, tp->prior_cwnd);",
        "return tp->snd_cwnd;",
        "undo_cwnd keeps the reduced window",
    ),
    (
        "tl_common.h",
        "return tl_max_u32(tp->snd_cwnd, tp->prior_cwnd);",
        "return tl_min_u32(tp->snd_cwnd, tp->prior_cwnd);",
        "undo_cwnd min instead of max",
    ),
]


# Why a mutant is equivalent: no input the kernel can give tells it from the program.
WHY = {
    "tie": "at equality both sides give the same value",
    "init": "the kernel zeroes the CA area before init, and every hook adopts the socket's "
    "windows (tl_sync) before it uses them",
    "order": "in the kernel's order of hooks the hook before has already adopted every window "
    "the stack writes in between (and what it computes is recomputed before use)",
    "range": "the value never reaches the changed case: windows stay between one packet and the "
    "port's cap of 65534, the stack writes ssthresh below that cap or as infinite, "
    "thresholds are lowered only when above alpha0 >= the step",
    "nothing": "the changed path adds or decides nothing: an addition of zero, a 1/65536-packet "
    "Diff when BaseRTT is unknown (compared with thresholds of whole packets), a window "
    "raised to two packets right after, a counter tested only for zero",
    "first": "overwritten before it is read: a round's first sample sets r_min and r_last; "
    "Vegas+'s previous RTT is unset only before the first sample, when both comparisons "
    "are false",
}

# The equivalent mutants: (file, function, the line's code, change) -> reason (WHY).
EQUIVALENT = {
    ("tl_common.h", "tl_min_u32", "return a < b ? a : b;", "< -> <="): "tie",
    ("tl_common.h", "tl_max_u32", "return a > b ? a : b;", "> -> >="): "tie",
    ("tl_common.h", "tl_cap_fp", "return v > TL_MAX_FP ? TL_MAX_FP : (u32)v;", "> -> >="): "tie",
    ("tl_common.h", "tl_sync", "if (s >= 0xffff)", ">= -> >"): "range",
    ("tl_common.h", "tl_sync", "if (s >= 0xffff)", "0xffff -> 65536"): "range",
    ("tl_common.h", "tl_sync", "if (s >= 0xffff)", "0xffff -> 65534"): "range",
    ("tl_common.h", "tl_commit", "u32 c = tl_max_u32(ca->cwnd_fp >> TL_FP_SHIFT, 1);", "1 -> 0"): "range",
    (
        "tl_common.h",
        "tl_init_windows",
        "ca->ssthresh_fp = TL_INF_FP;",
        "deleted: ca->ssthresh_fp = TL_INF_FP;",
    ): "init",
    ("tl_common.h", "tl_init_windows", "ca->cwnd_fp = 0;", "0 -> 1"): "init",
    ("tl_common.h", "tl_init_windows", "ca->cwnd_fp = 0;", "deleted: ca->cwnd_fp = 0;"): "init",
    ("tl_common.h", "tl_init_windows", "tl_sync(tp, ca);", "deleted: tl_sync(tp, ca);"): "init",
    ("tl_common.h", "tl_reno_increase", "u64 step = acked_fp < room ? acked_fp : room;", "< -> <="): "tie",
    ("tl_common.h", "tl_reno_increase", "if (!acked_fp)", "if (!acked_fp) -> if (0)"): "nothing",
    ("tl_common.h", "tl_reno_increase", "if (ca->cwnd_fp)", "if (ca->cwnd_fp) -> if (1)"): "range",
    ("tl_common.h", "tl_diff_fp", "return 0;", "0 -> 1"): "nothing",
    ("tl_common.h", "tl_diff_fp", "if (rtt < base)", "< -> <="): "tie",
    (
        "tl_common.h",
        "tl_scaled_at_least_two",
        "return v < 2 * TL_ONE ? 2 * TL_ONE : tl_cap_fp(v);",
        "< -> <=",
    ): "tie",
    ("tl_reno.c", "tl_init", "__builtin_memset(ca, 0, sizeof(*ca));", "0 -> 1"): "init",
    (
        "tl_reno.c",
        "tl_init",
        "__builtin_memset(ca, 0, sizeof(*ca));",
        "deleted: __builtin_memset(ca, 0, sizeof(*ca));",
    ): "init",
    (
        "tl_reno.c",
        "tl_init",
        "tl_init_windows(tl_tcp_sk(sk), ca);",
        "deleted: tl_init_windows(tl_tcp_sk(sk), ca);",
    ): "init",
    (
        "tl_reno.c",
        "tl_ssthresh",
        "tl_sync(tl_tcp_sk(sk), ca);",
        "deleted: tl_sync(tl_tcp_sk(sk), ca);",
    ): "order",
    (
        "tl_vegas_family.h",
        "tl_shift_thresholds",
        "ca->alpha_fp = ca->alpha_fp > by ? ca->alpha_fp - by : 0;",
        "> -> >=",
    ): "tie",
    (
        "tl_vegas_family.h",
        "tl_shift_thresholds",
        "ca->alpha_fp = ca->alpha_fp > by ? ca->alpha_fp - by : 0;",
        "0 -> 1",
    ): "range",
    (
        "tl_vegas_family.h",
        "tl_shift_thresholds",
        "ca->beta_fp = ca->beta_fp > by ? ca->beta_fp - by : 0;",
        "> -> >=",
    ): "tie",
    (
        "tl_vegas_family.h",
        "tl_shift_thresholds",
        "ca->beta_fp = ca->beta_fp > by ? ca->beta_fp - by : 0;",
        "0 -> 1",
    ): "range",
    (
        "tl_vegas_family.h",
        "tl_rule_on_ack",
        "if (ca->prev_valid) {",
        "if (ca->prev_valid) -> if (1)",
    ): "first",
    ("tl_vegas_family.h", "tl_restart_rounds", "ca->r_min = 0;", "0 -> 1"): "first",
    ("tl_vegas_family.h", "tl_restart_rounds", "ca->r_min = 0;", "deleted: ca->r_min = 0;"): "first",
    ("tl_vegas_family.h", "tl_restart_rounds", "ca->r_last = 0;", "0 -> 1"): "first",
    ("tl_vegas_family.h", "tl_restart_rounds", "ca->r_last = 0;", "deleted: ca->r_last = 0;"): "first",
    ("tl_vegas_family.h", "tl_end_round", "if (rtt < ca->base_rtt)", "< -> <="): "tie",
    ("tl_vegas_family.h", "tl_end_round", "if (step > 0 && !limited)", "> -> >="): "tie",
    (
        "tl_vegas_family.h",
        "tl_end_round",
        "ca->cwnd_fp = ca->cwnd_fp > TL_ONE ? ca->cwnd_fp - TL_ONE : 0;",
        "> -> >=",
    ): "tie",
    (
        "tl_vegas_family.h",
        "tl_end_round",
        "ca->cwnd_fp = ca->cwnd_fp > TL_ONE ? ca->cwnd_fp - TL_ONE : 0;",
        "0 -> 1",
    ): "nothing",
    (
        "tl_vegas_family.h",
        "tl_init",
        "__builtin_memset(ca, 0, sizeof(*ca));",
        "deleted: __builtin_memset(ca, 0, sizeof(*ca));",
    ): "init",
    ("tl_vegas_family.h", "tl_init", "tl_init_windows(tp, ca);", "deleted: tl_init_windows(tp, ca);"): "init",
    (
        "tl_vegas_family.h",
        "tl_pkts_acked",
        "if (rtt_us > 0 && (!ca->base_rtt || (u32)rtt_us < ca->base_rtt))",
        "< -> <=",
    ): "tie",
    (
        "tl_vegas_family.h",
        "tl_pkts_acked",
        "ca->r_min = ca->r_count && ca->r_min < r ? ca->r_min : r;",
        "< -> <=",
    ): "tie",
    ("tl_vegas_family.h", "tl_pkts_acked", "ca->r_count++;", "++ -> --"): "nothing",
    ("tl_vegas_family.h", "tl_set_state", "tl_sync(tp, ca);", "deleted: tl_sync(tp, ca);"): "order",
    ("tl_vegas_family.h", "tl_cwnd_event", "tl_sync(tp, ca);", "deleted: tl_sync(tp, ca);"): "order",
    (
        "tl_veno.c",
        "tl_veno_estimate",
        "ca->n_fp = srtt8 ? tl_diff_fp(ca->cwnd_fp, (u64)ca->base_rtt * 8, srtt8) : 0;",
        "0 -> 1",
    ): "nothing",
    (
        "tl_veno.c",
        "tl_init",
        "__builtin_memset(ca, 0, sizeof(*ca));",
        "deleted: __builtin_memset(ca, 0, sizeof(*ca));",
    ): "init",
    (
        "tl_veno.c",
        "tl_init",
        "tl_init_windows(tl_tcp_sk(sk), ca);",
        "deleted: tl_init_windows(tl_tcp_sk(sk), ca);",
    ): "init",
    (
        "tl_veno.c",
        "tl_pkts_acked",
        "if (rtt_us > 0 && (!ca->base_rtt || (u32)rtt_us < ca->base_rtt))",
        "< -> <=",
    ): "tie",
    ("tl_veno.c", "tl_ssthresh", "tl_sync(tp, ca);", "deleted: tl_sync(tp, ca);"): "order",
    ("tl_veno.c", "tl_ssthresh", "tl_veno_estimate(tp, ca);", "deleted: tl_veno_estimate(tp, ca);"): "order",
    ("tl_veno.c", "tl_cwnd_event", "tl_sync(tp, ca);", "deleted: tl_sync(tp, ca);"): "order",
}


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int  # 1-based
    new: str  # the whole new line
    what: str
    named: bool = False
    function: str = ""
    old: str = ""  # the line's code before the change, stripped

    def describe(self) -> str:
        return f"{self.file}:{self.line} {self.what}"

    def equivalent(self) -> str | None:
        """Why the mutant is equivalent, if it is one of EQUIVALENT."""
        return EQUIVALENT.get((self.file, self.function, self.old, self.what))


# Constants of the representation, not of behaviour: the harness reads the windows
# through the same header (TL_FP_SHIFT, the sentinels), and the rule and loss-kind
# numbers are names.
REPRESENTATION = {
    "TL_FP_SHIFT",
    "TL_MAX_FP",
    "TL_INF_FP",
    "TL_INFINITE_SSTHRESH",
    "TL_RULE_VEGAS",
    "TL_RULE_THRESHOLD",
    "TL_RULE_VEGAS_A",
    "TL_RULE_VEGAS_PLUS",
    "TL_LOSS_DUPACK",
    "TL_LOSS_TIMEOUT",
}
RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
LOGICAL = {"&&": "||", "||": "&&"}
TOKEN = re.compile(r"<<=?|>>=?|->|<=|>=|==|!=|&&|\|\||\+\+|--|\+=|-=|[<>!+-]|0x[0-9a-fA-F]+|\d+|\w+|\S")


def code_lines(path: Path) -> list[tuple[int, str, str, str]]:
    """(line number, line, its code without comments, the function it is in) for the
    lines the native build compiles; preprocessor lines only when they define a numeric
    constant."""
    out, in_comment, bpf_only, function = [], False, [], ""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        code, in_comment = _blank_comments(line, in_comment)
        stripped = code.strip()
        header = re.match(r"\w.*?(?:TL_OP\((\w+),|(\w+)\()", code)
        if header and not code.startswith(("#", "TL_OPS_SECTION", "struct tcp_congestion_ops")):
            function = header.group(1) or header.group(2)
        if stripped.startswith("#"):
            directive = stripped.split()[0]
            if directive in ("#ifdef", "#ifndef") and "TL_NATIVE" in stripped:
                bpf_only.append(directive == "#ifndef")
            elif directive in ("#if", "#ifdef", "#ifndef"):
                bpf_only.append(None)
            elif directive == "#else" and bpf_only and bpf_only[-1] is not None:
                bpf_only[-1] = not bpf_only[-1]
            elif directive == "#endif" and bpf_only:
                bpf_only.pop()
            define = re.match(r"#define (\w+) \(?\d", stripped)
            if not define or define.group(1) in REPRESENTATION:
                continue
        if any(bpf_only) or not stripped or code.rstrip().endswith("\\"):
            continue
        out.append((n, line, code, function))
    return out


def _blank_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The line with its comments blanked (same length, so positions hold), and whether
    a comment runs on past it."""
    out, i = [], 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            stop = len(line) if end < 0 else end + 2
            out.append(" " * (stop - i))
            in_comment, i = end < 0, stop
        elif line.startswith("/*", i):
            in_comment = True
        elif line.startswith("//", i):
            out.append(" " * (len(line) - i))
            break
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_comment


def generic(file: str, n: int, line: str, code: str, function: str) -> list[Mutant]:
    """The one-line changes of one line of code."""
    muts = []
    toks = [(m.start(), m.group()) for m in TOKEN.finditer(code)]
    old_code = code.strip()

    def at(pos: int, old: str, new: str, what: str):
        muts.append(
            Mutant(file, n, line[:pos] + new + line[pos + len(old) :], what, False, function, old_code)
        )

    for i, (pos, tok) in enumerate(toks):
        prev = toks[i - 1][1] if i else ""
        if tok in RELATIONAL and not (tok in "<>" and code.lstrip().startswith("#include")):
            at(pos, tok, RELATIONAL[tok], f"{tok} -> {RELATIONAL[tok]}")
        elif tok in LOGICAL:
            at(pos, tok, LOGICAL[tok], f"{tok} -> {LOGICAL[tok]}")
        elif tok == "!":
            at(pos, tok, "", "! dropped")
        elif (
            tok in ("+", "-")
            and (prev in (")", "]") or re.fullmatch(r"\w+", prev or ""))
            and prev != "return"
        ):
            other = "-" if tok == "+" else "+"
            at(pos, tok, other, f"{tok} -> {other}")
        elif tok in ("+=", "-=", "++", "--"):
            other = {"+=": "-=", "-=": "+=", "++": "--", "--": "++"}[tok]
            at(pos, tok, other, f"{tok} -> {other}")
        elif re.fullmatch(r"0x[0-9a-fA-F]+|\d+", tok) and not re.fullmatch(r"\w", line[pos - 1 : pos] or " "):
            value = int(tok, 0)
            # 0 and 1 are mostly truth values and signs: flip them; others one up and down.
            for v in [1 - value] if value in (0, 1) else [value + 1, value - 1]:
                at(pos, tok, hex(v) if tok.startswith("0x") else str(v), f"{tok} -> {v}")
    stripped = code.strip()
    cond = re.search(r"\bif \((.*)\)\s*\{?\s*$", code)
    if cond:
        body, pos = cond.group(1), cond.start(1)
        for forced in ("1", "0"):
            at(pos, body, forced, f"if ({body}) -> if ({forced})")
    elif stripped.endswith(";") and not re.match(
        r"(return\b|u8|u32|u64|s32|int|struct|const|static|char|})", stripped
    ):
        muts.append(Mutant(file, n, "", f"deleted: {stripped}", False, function, old_code))
    return muts


def named() -> list[Mutant]:
    muts = []
    for file, old, new, what, *nth in NAMED:
        lines = (BPF / file).read_text().splitlines(keepends=True)
        hits = [i for i, ln in enumerate(lines) if old in ln]
        k = nth[0] if nth else 0
        if k >= len(hits) or (len(hits) > 1 and not nth):
            sys.exit(f"named mutant {what!r}: {old!r} is on {len(hits)} lines of {file}")
        i = hits[k]
        muts.append(Mutant(file, i + 1, lines[i].replace(old, new).rstrip("\n"), what, named=True))
    return muts


def affected_ports(manifest) -> dict[str, list[str]]:
    """File -> the ports whose native build includes it."""
    files: dict[str, list[str]] = defaultdict(list)
    for p in manifest.ports:
        for f in ("tl_kernel.h", "tl_common.h", f"{p.kernel}.c", *([p.family.header] if p.family else [])):
            files[f].append(p.kernel)
    return files


def check(m: Mutant, ports: list[str], work: Path) -> str:
    """'caught', 'survived' or 'no build'."""
    src = work / "bpf"
    shutil.copytree(BPF, src, ignore=shutil.ignore_patterns("build"))
    target = src / m.file
    lines = target.read_text().splitlines()
    lines[m.line - 1] = m.new
    target.write_text("\n".join(lines) + "\n")
    targets = [str(work / f"{port}.harness") for port in ports]
    make = ["make", "-s", f"OUT={work}", "HARNESS_CFLAGS=-O0", *targets]
    if subprocess.run(make, cwd=src, capture_output=True).returncode != 0:
        return "no build"
    for port in ports:
        try:
            p = subprocess.run(
                [str(work / f"{port}.harness"), str(VECTORS / f"{port}.txt")], capture_output=True, timeout=60
            )
        except subprocess.TimeoutExpired:
            return "caught"
        if p.returncode != 0:
            return "caught"
    return "survived"


def mutants(manifest) -> list[Mutant]:
    files = affected_ports(manifest)
    found = named()
    seen = {(m.file, m.line, m.new) for m in found}
    for file in files:
        for n, line, code, function in code_lines(BPF / file):
            for m in generic(file, n, line, code, function):
                if (m.file, m.line, m.new) not in seen:
                    seen.add((m.file, m.line, m.new))
                    found.append(m)
    return found


def score(results: list[tuple[Mutant, str]]) -> tuple[int, int]:
    """(caught, counted): mutants that compiled and are not listed as equivalent."""
    counted = [r for m, r in results if r != "no build" and not m.equivalent()]
    return sum(r == "caught" for r in counted), len(counted)


def table(results: list[tuple[Mutant, str]]) -> str:
    per_file: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for m, r in results:
        if r == "no build":
            continue
        if m.equivalent():
            per_file[m.file][2] += 1
        else:
            per_file[m.file][0] += r == "caught"
            per_file[m.file][1] += 1
    caught, counted = score(results)
    lines = ["| file | mutants | caught | share | equivalent (not counted) |", "|---|---|---|---|---|"]
    for f, (c, t, e) in sorted(per_file.items()):
        lines.append(f"| `{f}` | {t} | {c} | {c / t:.0%} | {e} |")
    equivalent = sum(e for _, _, e in per_file.values())
    lines.append(f"| all | {counted} | {caught} | {caught / counted:.1%} | {equivalent} |")
    lines += ["", "Named in issue 19:", ""]
    lines += [f"- {m.what} (`{m.file}:{m.line}`): {r}" for m, r in results if m.named]
    survivors = [m for m, r in results if r == "survived" and not m.named and not m.equivalent()]
    if survivors:
        lines += ["", f"Surviving ({len(survivors)}):", ""]
        lines += [f"- `{m.file}:{m.line}` in `{m.function}`: `{m.new.strip() or m.what}`" for m in survivors]
    reasons = defaultdict(int)
    for m, r in results:
        if r != "no build" and m.equivalent():
            reasons[m.equivalent()] += 1
    if reasons:
        lines += ["", "Equivalent, by reason (the list is in the script):", ""]
        lines += [f"- {n}: {WHY[why]}" for why, n in sorted(reasons.items())]
    skipped = sum(r == "no build" for _, r in results)
    lines += ["", f"({skipped} mutants did not compile and are not counted.)"]
    return "\n".join(lines) + "\n"


def write_docs(text: str) -> None:
    doc = DOC.read_text()
    pattern = re.compile(r"(<!-- mutation: begin[^\n]*-->\n).*?(<!-- mutation: end -->)", re.S)
    if not pattern.search(doc):
        sys.exit(f"{DOC} lacks the mutation markers")
    DOC.write_text(pattern.sub(lambda m: m.group(1) + text + m.group(2), doc))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="")
    ap.add_argument("--docs", action="store_true")
    args = ap.parse_args()
    manifest = _kernel_ports().load(ROOT / "bpf" / "ports.toml")
    files = affected_ports(manifest)
    found = mutants(manifest)
    listed = {(m.file, m.function, m.old, m.what) for m in found}
    stale = [key for key in EQUIVALENT if key not in listed]
    if stale:
        print(f"EQUIVALENT lists mutants the sources no longer give: {stale}", file=sys.stderr)
        return 2
    todo = [m for m in found if args.only in m.describe()]
    if not todo:
        print(f"no mutant matches {args.only!r}", file=sys.stderr)
        return 2

    def run(m: Mutant) -> tuple[Mutant, str]:
        with tempfile.TemporaryDirectory(prefix="tl-mutant-") as work:
            return m, check(m, files[m.file], Path(work))

    with ThreadPoolExecutor(args.jobs) as pool:
        results = []
        for i, (m, r) in enumerate(pool.map(run, todo), 1):
            results.append((m, r))
            print(f"[{i}/{len(todo)}] {r:8s} {m.describe()}", file=sys.stderr, flush=True)
    text = table(results)
    print(text)
    if args.docs:
        write_docs(text)
    caught, counted = score(results)
    named_survivors = [m for m, r in results if m.named and r != "caught"]
    wrongly_equivalent = [m for m, r in results if m.equivalent() and r == "caught"]
    for m in wrongly_equivalent:
        print(f"listed as equivalent but caught: {m.describe()}", file=sys.stderr)
    return 0 if caught >= TARGET * max(counted, 1) and not named_survivors and not wrongly_equivalent else 1


if __name__ == "__main__":
    sys.exit(main())
