"""The Gaussian notebook's imports, at the top of its settings cell: the standard library and numpy.

``__all__`` lists what the other cell files take from it, as the notebook's later cells use these names."""
__all__ = ["json", "math", "np"]

# ---- notebook cell ----
import json
import math

import numpy as np
