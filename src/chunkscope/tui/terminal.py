"""The inspector's terminal: keys read one by one from multi-key reads, and an orderly exit on SIGTERM and SIGHUP.

Keys. A terminal sends Esc as the lone byte ESC, and many keys as escape sequences that start with ESC.
Textual's parser (``textual._xterm_parser.XTermParser``) decides which was meant by waiting: after ESC it
collects the following bytes, up to 100 ms (``ESCDELAY``) apart, into one sequence, and when that matches
no known key it reissues the bytes as keys, ESC turned into ``^``, or with the next character as Alt+key.
So when Esc and the next keys arrive in one read (a paste, scripted keys, a slow SSH link), ``s Esc ? Esc q``
became ``s``, ``^``, ``?``, ``alt+q``: the dialogs stayed open and ``q`` did nothing.

``KeyParser`` keeps Textual's parser and decides earlier: ESC followed by a character that cannot continue an
escape sequence (anything but ``[``, which starts a CSI sequence, and ``O``, an SS3 one; every key, mouse
and terminal report Textual reads begins with one of those) is the Esc key, and that character is read as
a key of its own. Alt+key sent as ESC + key is therefore read as Esc, then the key (chunkscope binds no
Alt key; terminals using the kitty keyboard protocol send Alt as a CSI sequence, which is unaffected).
Inside a bracketed paste nothing changes.

Signals. A SIGTERM or SIGHUP used to end the process where it stood, leaving the terminal in the alternate
screen with mouse reporting on and the cursor hidden. ``exit_on_signals`` makes both an ordinary quit
(the driver restores the terminal) with exit code 128 + the signal's number, the shell's convention.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import selectors
import signal
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from textual._parser import ParseError
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

ESC = "\x1b"
CONTINUES_ESCAPE = frozenset("[O")
"""Characters that, right after ESC, make it the start of an escape sequence (CSI and SS3)."""
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""Signals that quit the inspector the orderly way, restoring the terminal."""
READ_BYTES = 4096


class KeyParser(XTermParser):
    """Textual's terminal parser, with ESC + a character that cannot continue a sequence read as two keys."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._lone_escape = False
        """The last character given to the parser was ESC: it now waits for what follows."""
        self._pasting = False
        self._recent = ""
        """The last characters read, to see where a bracketed paste starts and ends."""

    def feed(self, data: str) -> Iterable[Message]:
        """Parse ``data``; an empty string is the end of input, as for Textual's parser."""
        if not data:
            return super().feed(data)
        return self._feed_keys(data)

    def _feed_keys(self, data: str) -> Iterator[Message]:
        fed = 0
        for index, character in enumerate(data):
            if self._lone_escape and not self._pasting and character != ESC and character not in CONTINUES_ESCAPE:
                if index > fed:
                    yield from super().feed(data[fed:index])
                    fed = index
                yield from self._escape_key()
            self._lone_escape = character == ESC
            self._follow_paste(character)
        if fed < len(data):
            yield from super().feed(data[fed:])

    def _escape_key(self) -> Iterator[Message]:
        """End the wait after ESC now, as its timeout would: the parser reports the Esc key."""
        if self._timeout_time is not None:
            self._timeout_time = -math.inf
            yield from self.tick()

    def _follow_paste(self, character: str) -> None:
        self._recent = (self._recent + character)[-len(BRACKETED_PASTE_START) :]
        if self._recent == BRACKETED_PASTE_START:
            self._pasting = True
        elif self._recent.endswith(BRACKETED_PASTE_END):
            self._pasting = False


class KeyReadingDriver(LinuxDriver):
    """Textual's POSIX driver reading its input through ``KeyParser``."""

    def run_input_thread(self) -> None:
        """Read the terminal until the app stops, turning its bytes into key, mouse and terminal messages."""
        parser = KeyParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        try:
            while not self.exit_event.is_set():
                self._read_ready(parser, decode, selector.select(0.1), final=False)
            selector.unregister(self.fileno)
            self._read_ready(parser, decode, selector.select(0.1), final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _ in parser.feed(""):
                    pass

    def _read_ready(
        self, parser: KeyParser, decode: Callable[..., str], ready: list[tuple[Any, int]], final: bool
    ) -> None:
        """Parse what the terminal sent, then whatever a timeout completes (a lone Esc)."""
        for number, (_, events) in enumerate(ready, 1):
            if events & selectors.EVENT_READ:
                text = decode(os.read(self.fileno, READ_BYTES), final=final and number == len(ready))
                if not text:
                    break  # end of input (a pipe)
                for message in parser.feed(text):
                    self.process_message(message)
        for message in parser.tick():
            self.process_message(message)


def exit_on_signals(app: App[Any]) -> Callable[[], None]:
    """Quit ``app`` (exit code 128 + the signal's number) on SIGTERM and SIGHUP; returns what undoes this.

    Called from the app's event loop (its mount): the handlers run in that loop, between messages.
    """
    loop = asyncio.get_running_loop()
    installed = []
    for signum in EXIT_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, app.exit, None, 128 + signum)
            installed.append(signum)

    def remove() -> None:
        for signum in installed:
            with contextlib.suppress(RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    return remove
