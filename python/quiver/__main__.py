"""`python -m quiver`: the same command as the `quiver` console script."""
import sys

from ._cli.main import main

sys.exit(main())
