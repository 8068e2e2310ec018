"""``flocklab explore MODEL``: the live explorer in the browser (:mod:`flocklab.explore`)."""

from __future__ import annotations

import argparse

from flocklab.core.commands import CommandContext
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import available_models, get_model

#: Longer help of ``flocklab explore``.
EXPLORE_DESCRIPTION = ("Serve a local web page that runs MODEL live with sliders for its "
                       "parameters, its drawing and its observables against time.")


def setup_explore(explore: argparse.ArgumentParser, context: CommandContext) -> None:
    """The ``explore`` command's arguments."""
    explore.add_argument("model", choices=available_models(), metavar="MODEL",
                         help=f"one of {', '.join(available_models())}")
    explore.add_argument("--port", type=int, default=5006,
                         help="port on localhost (0: any free one); default 5006")
    explore.add_argument("--no-browser", action="store_true",
                         help="do not open a browser window")
    explore.add_argument("--seed", type=int, default=0, help="initial seed; default 0")
    explore.add_argument("--out-dir", default="explore",
                         help="where Save writes the config snippet and the run file; "
                              "default ./explore")
    explore.add_argument("--threads", type=int, default=1,
                         help="kernel threads (results do not depend on it); default 1, "
                              "steadier frames on a busy machine")


def run_explore(args: argparse.Namespace) -> None:
    """Start the explorer (blocks until interrupted)."""
    if not 0 <= args.port < 65536:
        raise ParameterError("port", f"'--port' = {args.port}: allowed is 0 to 65535")
    if args.threads < 1:
        raise ParameterError("threads", f"'--threads' = {args.threads}: allowed is >= 1")
    try:
        from flocklab.explore.app import serve
    except ImportError as error:
        raise ParameterError("explore", f"the explorer needs Panel ({error.name} is not "
                                        f"installed): pip install 'flocklab[explore]'") \
            from None
    from flocklab.core.threads import set_threads

    set_threads(args.threads)
    serve(get_model(args.model), port=args.port, show=not args.no_browser,
          out_dir=args.out_dir, seed=args.seed)
