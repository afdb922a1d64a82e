"""The text notebook's first code cell: all it needs, the standard library and numpy.

``__all__`` lists what the other cell files take from it, as the notebook's later cells use these names."""
__all__ = ["Fraction", "json", "math", "np", "re", "unicodedata"]

# ---- notebook cell ----
import json
import math
import re
import unicodedata
from fractions import Fraction

import numpy as np
