#!/usr/bin/env python3
"""Prints the engine's module dependency graph and fails on an import cycle (issue 19).

The nodes are the top-level modules of crates/tcplab/src (cc, config, net, ...); module A
depends on B when a file of A names ``crate::B`` (in a ``use`` or in a path in code) or an
item the crate root re-exports from B (``crate::ConfigError`` is config's). Comments and
test code (``#[cfg(test)]`` modules and files) are left out: tests may reach anywhere.

    scripts/module-cycles.py            # the graph by layer, leaves (0) first; exit 1 on a
                                        # cycle (its modules in layer "-")
    scripts/module-cycles.py --src DIR  # another crate's src/

Exit status: 0 without a cycle, 1 with one (each cycle is printed with the files that
make its edges), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

DEFAULT_SRC = Path(__file__).resolve().parents[1] / "crates" / "tcplab" / "src"

#: ``crate::name`` anywhere in code, or the names inside ``crate::{a, b::c}``.
_PATH = re.compile(r"\bcrate::(\{[^}]*\}|\w+)")
_ROOT_REEXPORT = re.compile(r"^pub use (\w+)::(\{[^}]*\}|\w+);", re.M | re.S)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def strip_test_modules(text: str) -> str:
    """Removes each ``#[cfg(test)]`` item (a ``mod x { ... }`` block or a ``mod x;`` line)."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        j = m.end()
        semicolon, brace = text.find(";", j), text.find("{", j)
        if brace == -1 or (semicolon != -1 and semicolon < brace):
            i = semicolon + 1
            continue
        depth, k = 0, brace
        while k < len(text):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k
    out.append(text[i:])
    return "".join(out)


def test_only_files(src: Path) -> set[Path]:
    """Files declared as ``#[cfg(test)] mod name;`` (and everything under them)."""
    found = set()
    for f in src.rglob("*.rs"):
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod (\w+);", f.read_text()):
            here = f.parent if f.name in ("mod.rs", "lib.rs") else f.parent / f.stem
            found |= {here / f"{m.group(1)}.rs", here / m.group(1)}
    return found


def root_reexports(src: Path) -> dict[str, str]:
    """Names the crate root re-exports, mapped to the module they come from."""
    names = {}
    for module, items in _ROOT_REEXPORT.findall(strip_comments((src / "lib.rs").read_text())):
        for item in re.findall(r"\w+", items):
            names[item] = module
    return names


def dependencies(src: Path) -> tuple[list[str], dict[str, dict[str, set[str]]]]:
    """The top-level modules and, for each, the modules it uses with the files that do."""
    modules = sorted(
        p.stem if p.is_file() else p.name
        for p in src.iterdir()
        if (p.is_dir() and (p / "mod.rs").exists()) or (p.suffix == ".rs" and p.stem not in ("lib", "main"))
    )
    reexports = root_reexports(src)
    tests = test_only_files(src)
    edges: dict[str, dict[str, set[str]]] = {m: defaultdict(set) for m in modules}
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src)
        owner = rel.parts[0].removesuffix(".rs")
        if owner not in edges or any(f == t or t in f.parents for t in tests):
            continue
        code = strip_test_modules(strip_comments(f.read_text()))
        for m in _PATH.finditer(code):
            for name in re.findall(r"(?:^|[{,\s])(\w+)", m.group(1).strip("{}")):
                target = name if name in edges else reexports.get(name)
                if target and target != owner:
                    edges[owner][target].add(str(rel))
    return modules, edges


def cycles(modules: list[str], edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in modules:
        if v not in index:
            visit(v)
    return found


def layers(modules: list[str], edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """Modules by depth: first those that use no other module, then those using only
    earlier ones (an acyclic graph's order, as the report shows it)."""
    placed: dict[str, int] = {}
    remaining = set(modules)
    while remaining:
        ready = sorted(m for m in remaining if all(t in placed for t in edges[m]))
        if not ready:
            break
        for m in ready:
            placed[m] = 1 + max((placed[t] for t in edges[m]), default=-1)
        remaining -= set(ready)
    depth = max(placed.values(), default=-1) + 1
    return [sorted(m for m, d in placed.items() if d == i) for i in range(depth)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the crate's src directory")
    args = ap.parse_args(argv)
    if not (args.src / "lib.rs").is_file():
        ap.error(f"{args.src} has no lib.rs")
    modules, edges = dependencies(args.src)
    layered = layers(modules, edges)
    unplaced = sorted(set(modules) - {m for layer in layered for m in layer})
    for depth, layer in [*enumerate(layered), ("-", unplaced)]:
        for m in layer:
            uses = ", ".join(sorted(edges[m])) or "(nothing of the engine)"
            print(f"{depth}  {m:<8} -> {uses}")
    found = cycles(modules, edges)
    for component in found:
        print(f"\ncycle between {', '.join(component)}:")
        for a in component:
            for b in sorted(set(edges[a]) & set(component)):
                print(f"  {a} -> {b}: {', '.join(sorted(edges[a][b]))}")
    print(f"\n{len(modules)} modules, {len(found)} cycles", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
