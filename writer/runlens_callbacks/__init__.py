"""One-line runlens callbacks for training frameworks, on top of runlens_writer.

Each lives in its own module, which imports its framework; importing this package imports none:

    from runlens_callbacks.lightning import RunlensLightningCallback      # PyTorch Lightning 2
    from runlens_callbacks.transformers import RunlensTrainerCallback     # Hugging Face Trainer
    from runlens_callbacks.keras import RunlensKerasCallback              # Keras 3

(``from runlens_callbacks import RunlensKerasCallback`` works too and imports only Keras.)
Every callback takes the log path, ``collection=`` and ``task=``, and optionally ``config=``,
``run_id=`` and ``per_rank_files=``; its RunLog is ``callback.run_log``. What each writes and
times is in its module docstring and in writer/README.md.
"""

from __future__ import annotations

import importlib

_MODULES = {
    "RunlensLightningCallback": "runlens_callbacks.lightning",
    "RunlensTrainerCallback": "runlens_callbacks.transformers",
    "RunlensKerasCallback": "runlens_callbacks.keras",
}
__all__ = sorted(_MODULES)


def __getattr__(name: str):
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
