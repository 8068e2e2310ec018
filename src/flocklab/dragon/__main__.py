"""``python -m flocklab.dragon <verb>``: see :mod:`flocklab.dragon.cli`."""

import sys

from flocklab.dragon.cli import main

sys.exit(main())
