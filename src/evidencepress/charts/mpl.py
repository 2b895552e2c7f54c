"""The drawing helpers of ``draw/common.py``, imported on first use.

The kinds (``kinds/*.py``) hold their drawing code beside their layout; they
reach matplotlib only through this module, so planning a chart (which reads
the registry) never imports matplotlib.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from .draw import common, legends

    return getattr(common, name) if hasattr(common, name) else getattr(legends, name)
