"""The screens: every renderer that prints, the only layer that imports rich."""
