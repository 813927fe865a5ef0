"""How a command ends on the package's errors. One place maps them to exit codes, so every
command, including those added later and those of the sub-commands, reports bad input as
``error: ...`` with exit code 2 rather than a traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from typer.core import TyperGroup

from .console import error
from .errors import OutputError, ScenarioError, SimulationError, TestbedError

EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_ENGINE_BUG = 3


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Prints ``error: <message>`` and ends the command with ``code``."""
    error(message)
    raise typer.Exit(code)


class Commands(TyperGroup):
    """The command group: any package error a command lets through ends it here."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except (ScenarioError, OutputError) as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), EXIT_ENGINE_BUG)
        except TestbedError as e:  # the bed failed a run it was able to start
            fail(f"kernel test bed: {e}", EXIT_RUN_FAILED)
