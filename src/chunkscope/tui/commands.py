"""Command palette (ctrl+p): every key's action, namespaced, plus filters and jumping to a question.

Titles and explanations come from the action table (:mod:`chunkscope.tui.actions`); the keys shown are
the active ones, so a remapped key shows its new key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from chunkscope.tui.actions import action_for
from chunkscope.tui.screens.base import SessionScreen
from chunkscope.tui.state.filters import filter_cycle


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
            entry = action_for(binding)
            # Textual's own bindings (focus, scrolling, quit) are not in the table: their texts are their own.
            namespace, description, tooltip = (
                (entry.namespace, entry.description, entry.tooltip)
                if entry is not None
                else ("Keys", binding.description, binding.tooltip)
            )
            title = f"{namespace}: {description}"
            help_text = f"{tooltip} · key {key_display}" if tooltip else f"key {key_display}"
            help_text = help_text.replace("[", r"\[")  # the palette reads help as markup
            yield PaletteCommand(title, help_text, partial(self._run, node, binding.action))

    def _filter_commands(self) -> Iterator[PaletteCommand]:
        screen = self.screen
        if not isinstance(screen, SessionScreen):
            return
        for state in filter_cycle(screen.compare, screen.has_fragility, screen.has_answers, screen.session.multi_hop):
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
        for tag, count in screen.session.tags_present().items():
            yield PaletteCommand(
                f"Filter: group #{tag}",
                f"List only the {count} questions tagged {tag}",
                partial(self._run, screen, f"set_group({tag!r})"),
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
