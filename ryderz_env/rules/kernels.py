"""Compiled arithmetic of the engine (numba): placing a piece's outline on the table.

A piece's world outline is its local outline turned and moved by its pose. Done with a numpy
matrix product, that goes through the BLAS library numpy was built with, which picks its
kernel for the CPU at run time: on CPUs with fused multiply-add the product rounds once per
coordinate pair (``fma(y, -s, x * c)``), on older ones twice, so the same game could place
its pieces a rounding apart on two machines. Here the arithmetic is written out, with the
fused multiply-add as LLVM's ``llvm.fma`` (rounded once on every CPU, in software where there
is no instruction for it): the results are those of the fused product, wherever it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

if TYPE_CHECKING:
    # what compiled code sees: numba's stubs type an intrinsic's call as its typing function's
    # (typing context first) that never returns
    def fma(a: float, b: float, c: float) -> float:
        """``a * b + c`` rounded once (LLVM's ``llvm.fma.f64``), for compiled code."""
        ...

else:

    @intrinsic
    def fma(typingctx, a, b, c):  # noqa: ANN001, ANN201, ARG001
        """``a * b + c`` rounded once (LLVM's ``llvm.fma.f64``), for compiled code."""
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
            return builder.fma(*args)

        return sig, codegen


@numba.njit(cache=True, error_model="numpy", nogil=True)
def place_outline(
    local: np.ndarray, x: float, y: float, c: float, s: float
) -> tuple[np.ndarray, float, float, float, float]:  # pragma: no cover
    """The world coordinates of ``local`` ((N, 2), N >= 1) turned by the rotation whose
    cosine and sine are ``c`` and ``s`` and moved by (``x``, ``y``), and their bounds (min x,
    min y, max x, max y)."""
    out = np.empty((local.shape[0], 2))  # float64, whatever the input's type
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    for i in range(local.shape[0]):
        lx, ly = local[i, 0], local[i, 1]
        wx = fma(ly, -s, lx * c) + x
        wy = fma(ly, c, lx * s) + y
        out[i, 0], out[i, 1] = wx, wy
        x0, y0, x1, y1 = min(x0, wx), min(y0, wy), max(x1, wx), max(y1, wy)
    return out, x0, y0, x1, y1
