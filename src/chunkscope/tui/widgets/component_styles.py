"""Rich styles of a Line API widget's component classes, cached until the look changes.

A widget that renders its own strips asks for the style of a component class
(``document-view--gold``) many times per line. :class:`ComponentStyles` keeps
them, and drops them (bumping :attr:`ComponentStyles.generation`, so the widget
drops its cached strips too) only when the base style or a component's style
really changed: Textual restyles on every focus or hover change, most of which
change nothing a component shows.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from rich.style import Style
from textual.widget import Widget


class ComponentStyles:
    """Styles of ``widget``'s component classes named ``<prefix>--<name>``."""

    def __init__(self, widget: Widget, prefix: str) -> None:
        self._widget = widget
        self._prefix = prefix
        self._dirty = True
        self._fingerprint: object = None
        self._cache: dict[Hashable, Style] = {}
        self.base = Style()
        """The widget's own style, under every component."""
        self.generation = 0
        """Bumped whenever the look changed: part of the key of every cached strip."""

    def invalidate(self) -> None:
        """The widget was restyled (call from ``notify_style_update``): check before the next use."""
        self._dirty = True

    def check(self) -> bool:
        """Re-read the styles after a restyle; True when the look changed (cached strips are stale)."""
        if not self._dirty:
            return False
        self._dirty = False
        widget = self._widget
        self.base = widget.rich_style
        fingerprint = (
            self.base,
            tuple(widget.get_component_rich_style(name) for name in sorted(widget.COMPONENT_CLASSES)),
        )
        if fingerprint == self._fingerprint:
            return False
        self._fingerprint = fingerprint
        self.generation += 1
        self._cache.clear()
        return True

    def layer(self, name: str, background: bool = True) -> Style:
        """What component ``name`` adds on top of other styles: its colours (when set) and text style."""
        key = ("layer", name, background)
        style = self._cache.get(key)
        if style is None:
            full_name = f"{self._prefix}--{name}"
            styles = self._widget.get_component_styles(full_name)
            full = self._widget.get_component_rich_style(full_name)
            style = (
                Style(
                    color=full.color if styles.has_rule("color") else None,
                    bgcolor=full.bgcolor if background and styles.has_rule("background") else None,
                )
                + styles.text_style
            )
            self._cache[key] = style
        return style

    def component(self, name: str) -> Style:
        """The base style with component ``name`` on top."""
        return self.cached(("component", name), lambda: self.base + self.layer(name))

    def cached(self, key: Hashable, build: Callable[[], Style]) -> Style:
        """The style under ``key``, built once per look (e.g. one per combination of mark bits)."""
        style = self._cache.get(key)
        if style is None:
            style = self._cache[key] = build()
        return style
