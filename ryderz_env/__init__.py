"""Lazer Ryderz: rules engine on exact table geometry and its envs (issues 4 and 5)."""
