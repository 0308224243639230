"""Types of the compiled canonical-JSON check (_canonical.pyx)."""

import numpy as np
import numpy.typing as npt

def already_canonical(data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> bytearray: ...
