"""Applying actions in tests and reading their refusals."""

from __future__ import annotations

import pytest

from engine import ActionError, apply


def fails(tree, actions, *fragments):
    with pytest.raises(ActionError) as info:
        apply(tree, actions)
    for fragment in fragments:
        assert fragment in info.value.message, info.value.message
    return info.value
