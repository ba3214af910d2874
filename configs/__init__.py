"""The shipped YAML configs (rules variants, tracks, tables, decks, training runs).

This folder stays at the top of the repository, where users look for it, and is installed
with the project as the package ``tabletop_configs`` (``pyproject.toml`` maps it), so that
an installed wheel finds its defaults: see :func:`tabletop.config.shipped_configs`.
"""
