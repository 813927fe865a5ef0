"""The manifest of kernel ports (bpf/ports.toml) is the one list: the BPF build, the Python
kernel module, the vectors and docs/kernel.md all agree with it. No root needed."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tcplab import kernel, kernel_ports
from tcplab.kernel_ports import ManifestError

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "kernel.md"


def test_the_makefile_builds_the_manifests_ports():
    out = subprocess.run(
        ["make", "-s", "print-ports"], cwd=ROOT / "bpf", capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == [p.kernel for p in kernel.PORTS.ports]


def test_every_source_has_an_entry_and_every_entry_a_source_and_vectors():
    sources = {p.stem for p in (ROOT / "bpf").glob("tl_*.c")}
    assert sources == set(kernel.OBJECTS)
    for p in kernel.PORTS.ports:
        assert (ROOT / p.source).exists(), p.source
        assert (ROOT / "tests" / "vectors" / f"{p.kernel}.txt").exists(), f"vectors of {p.kernel}"
        if p.family:
            assert (ROOT / "bpf" / p.family.header).exists()


def test_kernel_module_names_come_from_the_manifest():
    assert kernel.KERNEL_NAMES["newreno"] == "tl_reno" and kernel.KERNEL_NAMES["code"] == "tl_code"
    assert kernel.kernel_name("vegas_plus") == "tl_vegas_plus"
    assert sorted(kernel.OBJECTS) == kernel.OBJECTS and len(kernel.OBJECTS) == len(kernel.PORTS.ports)


def test_docs_table_is_the_manifests():
    text = DOC.read_text()
    m = re.search(r"<!-- ports: begin[^\n]*-->\n(.*?)<!-- ports: end -->", text, re.S)
    assert m, "docs/kernel.md lacks the ports markers"
    assert m.group(1) == kernel_ports.markdown(kernel.PORTS), (
        "regenerate with `tcplab kernel ports --markdown`"
    )


def test_cli_prints_the_ports_and_the_docs_table():
    r = CliRunner().invoke(kernel.app, ["ports"])
    assert r.exit_code == 0 and r.output == kernel_ports.text(kernel.PORTS)
    assert all(len(line) <= 80 for line in r.output.splitlines())
    for p in kernel.PORTS.ports:
        assert f"{p.kernel} ({' / '.join(p.simulator)})" in r.output
    assert "loss_history = false" in r.output
    r = CliRunner().invoke(kernel.app, ["ports", "--markdown"])
    assert r.exit_code == 0 and r.output == kernel_ports.markdown(kernel.PORTS)


def _doc() -> dict:
    return tomllib.loads(kernel_ports.MANIFEST.read_text())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["port"][1].pop("spec"), r"port\[1\]\.spec: missing"),
        (
            lambda d: d["port"][2].update(family="reno"),
            r"port\[2\]\.family: 'reno' is not one of \['vegas'\]",
        ),
        (lambda d: d["port"][3].update(kernel="code"), r"port\[3\]\.kernel: 'code' must be tl_"),
        (
            lambda d: d["port"][4].update(simulator=["vegas"]),
            r"port\[4\]: 'vegas' is already named by port\[1\]",
        ),
        (lambda d: d["port"][0].update(differences="none"), r"port\[0\]\.differences: 'none' is not a list"),
        (lambda d: d["port"][0]["spec"].pop("name"), r"port\[0\]\.spec\.name: missing"),
        (lambda d: d.update(port=[]), r"port: the manifest lists no ports"),
    ],
)
def test_a_bad_entry_is_named(change, message):
    doc = _doc()
    change(doc)
    with pytest.raises(ManifestError, match=message):
        kernel_ports.parse(doc)


def test_an_unreadable_manifest_names_the_file(tmp_path):
    bad = tmp_path / "ports.toml"
    bad.write_text("[[port]\n")
    with pytest.raises(ManifestError, match=str(bad)):
        kernel_ports.load(bad)
