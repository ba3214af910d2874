"""Third-party trainers on our envs (docs/integrations.md): each test is a short run that
trains and checks that no illegal action was played.

Every test here is marked ``integration``; the RLlib ones (``test_rllib*.py``) are also
marked ``rllib``: they run in their own venv (``make test-rllib``: Ray pins its own
Gymnasium), and the main run deselects them (``-m "not rllib"``) rather than skipping them.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark this folder's tests ``integration``, and ``rllib`` those of ``test_rllib*.py``."""
    here = Path(__file__).parent
    for item in items:
        path = Path(str(item.fspath))
        if here not in path.parents:
            continue
        item.add_marker(pytest.mark.integration)
        if path.name.startswith("test_rllib"):
            item.add_marker(pytest.mark.rllib)
