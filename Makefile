# Two entry points (see README): `make run` (the main job) and `make test`.
# Both set up everything on a fresh machine with Python 3.11 and a Rust toolchain.

VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: setup build run test lint rust-test py-test bench clean-venv

$(VENV)/.deps: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "maturin>=1.7,<2" numpy pandas pyarrow typer rich tomli-w matplotlib scipy \
		pytest hypothesis ruff
	touch $@

setup: $(VENV)/.deps

# Builds the Rust engine into the venv (incremental).
build: setup
	$(PY) -m pip install -q --no-build-isolation --no-deps -e .

run: build
	$(BIN)/tcplab run examples/reno_dumbbell.toml --out out/reno_dumbbell

lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

rust-test:
	cargo test --workspace

py-test: build
	$(BIN)/pytest -q

test: lint rust-test py-test

bench:
	cargo run --release -p tcplab --example bench_reno10
