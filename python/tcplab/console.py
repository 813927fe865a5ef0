"""Terminal output of the command line.

Every string printed through these consoles is shown exactly as given: rich markup is
off, so a file called ``[red]x.toml``, a flow called ``[/x]`` or an error text with
``[low, high]`` can neither vanish nor crash the output. Styling is added only through
:class:`rich.text.Text` objects (:func:`styled`), never by embedding markup in strings.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from rich.console import Console
from rich.text import Text

console = Console(markup=False)
# Errors are not wrapped: a long path in one stays whole, to be copied or searched for.
err_console = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)


def styled(text: str, style: str) -> Text:
    """``text`` in ``style`` (a rich style such as ``"bold red"``), taken literally."""
    return Text(text, style=style)


def line(*parts: str | Text) -> Text:
    """One line from plain strings and :func:`styled` pieces, each taken literally."""
    return Text.assemble(*parts)


# An error quoting a huge value (a 1 MB name) is cut to its start and end.
ERROR_CHARS = 2000


def error(message: str) -> None:
    """``error: <message>`` on stderr."""
    if len(message) > ERROR_CHARS:
        left_out = len(message) - ERROR_CHARS
        message = (
            f"{message[: ERROR_CHARS // 2]} [... {left_out} characters ...] {message[-ERROR_CHARS // 2 :]}"
        )
    err_console.print(line(styled("error:", "bold red"), " ", message))


def warn(message: str) -> None:
    """``warning: <message>`` on stderr (the command goes on)."""
    err_console.print(line(styled("warning:", "bold yellow"), " ", message))


def status(message: str, **kwargs: Any) -> AbstractContextManager:
    """A spinner with ``message`` (a rich status parses plain strings as markup)."""
    return console.status(Text(message), **kwargs)
