"""Logging set-up for stage jobs: everything, tracebacks included, goes to the rule's log."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def log_to(path: str | None) -> Iterator[logging.Logger]:
    """Send log records, warnings and stderr to ``path`` for the duration of the block.

    An exception is written to the log with its traceback and re-raised, so
    Snakemake marks the job failed and the log says why. Everything changed (the
    ``flocklab`` logger's handlers and level, warning capture, ``sys.stderr``) is restored
    on exit. For entry points (workflow scripts), not for library code.
    """
    logger = logging.getLogger("flocklab")
    if path is None:
        yield logger
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as stream:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        old_level = logger.level
        captured = logging._warnings_showwarning is not None  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logging.captureWarnings(True)
        logging.getLogger("py.warnings").addHandler(handler)
        old_stderr = sys.stderr
        sys.stderr = stream
        try:
            yield logger
        except BaseException:
            stream.write(traceback.format_exc())
            stream.flush()
            raise
        finally:
            sys.stderr = old_stderr
            logger.removeHandler(handler)
            logger.setLevel(old_level)
            logging.getLogger("py.warnings").removeHandler(handler)
            logging.captureWarnings(captured)
