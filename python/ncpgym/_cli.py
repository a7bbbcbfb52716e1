"""Argument types shared by the command lines (python -m ncpgym.train, python -m ncpgym.play)."""

from __future__ import annotations

import argparse
import json


def json_object(text: str) -> dict:
    """An argparse type: a JSON object (task keyword arguments, e.g. '{"mesh": 3}')."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value
