"""Command palette (ctrl+p): every key's action, namespaced, plus filters and jumping to a question."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

NAMESPACES = {
    "app": "App",
    "list": "List",
    "question": "Question",
    "filter": "Filter",
    "config": "Config",
    "view": "View",
    "export": "Export",
    "compare": "Compare",
    "summary": "Summary",
    "document": "Document",
    "ranked": "Ranked",
}


def namespace_of(binding: Binding) -> str:
    """``Config`` for ``config.chunker-next``; ``Keys`` for bindings without an id."""
    prefix = (binding.id or "").split(".", 1)[0]
    return NAMESPACES.get(prefix, prefix.title() or "Keys")


def class_bindings(cls: type) -> list[Binding]:
    """Bindings a widget or screen class declares, its bases' first (as Textual merges them)."""
    found: list[Binding] = []
    for base in reversed(cls.__mro__):
        for binding in base.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding):
                found.append(binding)
    return found


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    """One palette entry."""

    title: str
    help: str
    run: Callable[[], object]


class ChunkscopeCommands(Provider):
    """Every active binding as ``Namespace: description``, the list filters, and ``Question: go to <id>``."""

    def _binding_commands(self) -> Iterator[PaletteCommand]:
        seen: set[tuple[int, str]] = set()
        for key, active in self.screen.active_bindings.items():
            binding, node = active.binding, active.node
            marker = (id(node), binding.action)
            if marker in seen or not binding.description or not active.enabled:
                continue
            seen.add(marker)
            key_display = self.app.get_key_display(binding) if key else ""
            title = f"{namespace_of(binding)}: {binding.description}"
            help_text = f"{binding.tooltip} · key {key_display}" if binding.tooltip else f"key {key_display}"
            help_text = help_text.replace("[", r"\[")  # the palette reads help as markup
            yield PaletteCommand(title, help_text, partial(self._run, node, binding.action))

    def _filter_commands(self) -> Iterator[PaletteCommand]:
        from chunkscope.tui.screens.base import SessionScreen
        from chunkscope.tui.session import filter_cycle

        screen = self.screen
        if not isinstance(screen, SessionScreen):
            return
        for state in filter_cycle(screen.compare):
            yield PaletteCommand(
                f"Filter: show {state}",
                f"List only {state} questions",
                partial(self._run, screen, f"set_filter({state!r})"),
            )
        for cause in screen.session.causes_present(screen.compare):
            yield PaletteCommand(
                f"Filter: cause {cause.value}",
                f"List only questions whose failure cause is {cause.value}",
                partial(self._run, screen, f"set_cause({cause.value!r})"),
            )

    def _commands(self) -> list[PaletteCommand]:
        return [*self._binding_commands(), *self._filter_commands()]

    def _run(self, node: DOMNode, action: str) -> None:
        self.app.call_later(self.app.run_action, action, node)

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.run, help=command.help)
        async for hit in self._question_hits(query):
            yield hit

    async def _question_hits(self, query: str) -> Hits:
        from chunkscope.tui.screens.base import SessionScreen

        screen = self.screen
        needle = query.strip().removeprefix("go to ").strip().casefold()
        if not isinstance(screen, SessionScreen) or len(needle) < 2:
            return
        matcher = self.matcher(needle)
        shown = 0
        for question in screen.session.questions:
            if needle in question.id.casefold():
                title = f"Question: go to {question.id}"
                yield Hit(
                    matcher.match(question.id) or 0.5,
                    matcher.highlight(title),
                    partial(screen.go_to_question, question.id),
                    help=" ".join(question.query.split())[:80].replace("[", r"\["),
                )
                shown += 1
                if shown == 20:
                    return
