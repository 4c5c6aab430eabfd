"""`python3 -m core.cli`: the `softgpu` command."""
import sys

from core.cli import main

sys.exit(main())
