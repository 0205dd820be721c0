"""The inspector's screens: one per module, each with its .tcss beside it (rules prefixed by the screen)."""
