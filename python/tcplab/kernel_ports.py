"""The manifest of kernel ports, bpf/ports.toml: the one list of tcplab's BPF congestion
controls, which the BPF build, the Rust vector generator, this package, the tests and
docs/kernel.md all read (see the file's header for its fields).

``load`` checks every entry and names the entry and field of any mistake, so that adding a
port fails early and clearly; ``markdown`` renders the table docs/kernel.md carries and
``text`` the same for a terminal."""

from __future__ import annotations

import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The manifest in this checkout.
MANIFEST = Path(__file__).resolve().parents[2] / "bpf" / "ports.toml"


class ManifestError(ValueError):
    """A manifest entry is missing a field or has one of the wrong kind."""


@dataclass(frozen=True)
class Family:
    """A shared header several ports are built from, with the differences they inherit."""

    name: str
    header: str
    differences: tuple[str, ...]


@dataclass(frozen=True)
class Port:
    kernel: str
    simulator: tuple[str, ...]
    #: The simulator algorithm the port implements, with its compile-time parameters.
    spec: dict[str, Any]
    rule: str
    differences: tuple[str, ...]
    family: Family | None

    @property
    def source(self) -> str:
        return f"bpf/{self.kernel}.c"


@dataclass(frozen=True)
class Manifest:
    ports: tuple[Port, ...]
    families: tuple[Family, ...]

    def kernel_names(self) -> dict[str, str]:
        """Simulator algorithm name -> the kernel name of its port."""
        return {sim: p.kernel for p in self.ports for sim in p.simulator}

    def objects(self) -> list[str]:
        """The kernel names, one object each, sorted."""
        return sorted(p.kernel for p in self.ports)


def _field(entry: dict, where: str, key: str, kind: type, default: Any = None) -> Any:
    if key not in entry:
        if default is not None:
            return default
        raise ManifestError(f"{where}.{key}: missing (see the field list at the top of bpf/ports.toml)")
    value = entry[key]
    if not isinstance(value, kind):
        raise ManifestError(f"{where}.{key}: {value!r} is not a {kind.__name__}")
    return value


def _strings(entry: dict, where: str, key: str, default: list | None = None) -> tuple[str, ...]:
    values = _field(entry, where, key, list, default)
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v:
            raise ManifestError(f"{where}.{key}[{i}]: {v!r} is not a non-empty string")
    return tuple(values)


def parse(doc: dict[str, Any]) -> Manifest:
    """The manifest from its parsed TOML; raises ManifestError naming the field at fault."""
    families = {}
    for name, entry in _field(doc, "manifest", "family", dict, {}).items():
        where = f"family.{name}"
        families[name] = Family(
            name, _field(entry, where, "header", str), _strings(entry, where, "differences")
        )
    ports: list[Port] = []
    seen: dict[str, str] = {}
    for i, entry in enumerate(_field(doc, "manifest", "port", list)):
        where = f"port[{i}]"
        kernel = _field(entry, where, "kernel", str)
        if not (kernel.startswith("tl_") and kernel.replace("_", "").isalnum() and kernel.islower()):
            raise ManifestError(
                f"{where}.kernel: {kernel!r} must be tl_ followed by lower-case letters and digits"
            )
        spec = _field(entry, where, "spec", dict)
        if not isinstance(spec.get("name"), str):
            raise ManifestError(f"{where}.spec.name: missing (the simulator algorithm the port implements)")
        family = entry.get("family")
        if family is not None and family not in families:
            raise ManifestError(f"{where}.family: {family!r} is not one of {sorted(families)}")
        simulator = _strings(entry, where, "simulator")
        for name in (kernel, *simulator):
            if name in seen:
                raise ManifestError(f"{where}: {name!r} is already named by {seen[name]}")
            seen[name] = where
        ports.append(
            Port(
                kernel,
                simulator,
                spec,
                _field(entry, where, "rule", str),
                _strings(entry, where, "differences", []),
                families[family] if family else None,
            )
        )
    if not ports:
        raise ManifestError("port: the manifest lists no ports")
    return Manifest(tuple(ports), tuple(families.values()))


def load(path: Path = MANIFEST) -> Manifest:
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"{path}: {e}") from None
    try:
        return parse(doc)
    except ManifestError as e:
        raise ManifestError(f"{path}: {e}") from None


def _spec_text(spec: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v!r}".replace("'", '"') for k, v in spec.items())


def markdown(manifest: Manifest) -> str:
    """docs/kernel.md's table of ports and their differences."""
    lines = [
        "| simulator | kernel name | source | rule | simulator spec the vectors come from |",
        "|---|---|---|---|---|",
    ]
    for p in manifest.ports:
        source = f"`{p.source}`" + (f" + `{p.family.header}`" if p.family else "")
        lines.append(
            f"| {' / '.join(p.simulator)} | `{p.kernel}` | {source} | {p.rule} | `{_spec_text(p.spec)}` |"
        )
    for f in manifest.families:
        members = ", ".join(f"`{p.kernel}`" for p in manifest.ports if p.family == f)
        lines += ["", f"Every port of `{f.header}` ({members}):"]
        lines += [f"- {d}" for d in f.differences]
    for p in manifest.ports:
        if p.differences:
            lines += ["", f"`{p.kernel}`:"]
            lines += [f"- {d}" for d in p.differences]
    return "\n".join(lines) + "\n"


def text(manifest: Manifest, width: int = 80) -> str:
    """The ports and their differences for a terminal, within ``width`` columns."""

    def wrap(s: str, indent: str) -> list[str]:
        return textwrap.wrap(s, width, initial_indent=indent, subsequent_indent=indent + "  ")

    lines = []
    for p in manifest.ports:
        lines.append(f"{p.kernel} ({' / '.join(p.simulator)}): {p.source}")
        lines += wrap(p.rule, "  ")
        lines += wrap(f"vectors from: {_spec_text(p.spec)}", "  ")
        for d in (*(p.family.differences if p.family else ()), *p.differences):
            lines += wrap(f"- {d}", "  ")
    return "\n".join(lines) + "\n"
