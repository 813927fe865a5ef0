# Two entry points (see README): `make run` (the main job) and `make test`.
# Both set up everything on a fresh machine with Python 3.11 and a Rust toolchain.

VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: setup system-deps build run test lint rust-test py-test reproduce-quick bench

$(VENV)/.deps: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "maturin>=1.7,<2"
	$(PY) -m pip install -q --no-build-isolation -e '.[dev]'
	touch $@

setup: $(VENV)/.deps

# Builds the Rust engine into the venv (incremental).
build: setup
	$(PY) -m pip install -q --no-build-isolation --no-deps -e .

system-deps:
	bash scripts/install-system-deps.sh
	bash scripts/install-kernel-deps.sh

# The main job: every experiment of the five papers, then the report in report/index.html.
run: build
	$(BIN)/tcplab reproduce all --report report

# As root the quick run includes the kernel test bed's side of code/linux-fig19 (~2 min).
KERNEL_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --kernel)

reproduce-quick: build
	$(BIN)/tcplab reproduce all --quick $(KERNEL_FLAG) --store results-quick --report report-quick

lint: setup
	python3 scripts/module-cycles.py
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench

rust-test: system-deps
	cargo test --workspace

py-test: build system-deps
	$(BIN)/pytest -q

test: lint rust-test py-test reproduce-quick

bench:
	cargo run --release -p tcplab --example bench_reno10
