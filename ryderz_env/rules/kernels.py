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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

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


#: the options of every compiled kernel of the project: cached on disk, numpy's error model
#: (no division checks), the GIL released, no C-callable wrapper (nothing calls them as C
#: function pointers) and no reference counting (they allocate nothing: the caller passes the
#: arrays they fill). The last two make a cold start's compile shorter. (numba's disk cache
#: is keyed by a kernel's own source file and signature, not by these options: after
#: changing them, delete the cache, ``__pycache__/*.nbi``/``*.nbc`` or ``NUMBA_CACHE_DIR``.)
JIT_OPTIONS: dict[str, bool | str] = {
    "cache": True,
    "error_model": "numpy",
    "nogil": True,
    "no_cfunc_wrapper": True,
    "_nrt": False,
}

_F = TypeVar("_F", bound=Callable[..., Any])


def kernel(fn: _F) -> _F:
    """``fn`` compiled by numba (``numba.njit``) with :data:`JIT_OPTIONS`."""
    jit: Any = numba.njit  # (its typing stubs know none of the last two options)
    return cast(_F, jit(fn, **JIT_OPTIONS))


@kernel
def place_into(
    out: np.ndarray, local: np.ndarray, x: float, y: float, c: float, s: float
) -> tuple[float, float, float, float]:  # pragma: no cover
    """Write into ``out`` ((N, 2) float64) the world coordinates of ``local`` ((N, 2), N >= 1)
    turned by the rotation whose cosine and sine are ``c`` and ``s`` and moved by (``x``,
    ``y``); return their bounds (min x, min y, max x, max y)."""
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    for i in range(local.shape[0]):
        lx, ly = local[i, 0], local[i, 1]
        wx = fma(ly, -s, lx * c) + x
        wy = fma(ly, c, lx * s) + y
        out[i, 0], out[i, 1] = wx, wy
        # min(x0, wx) ... max(y1, wy) as numba computes them (the new value where the
        # comparison holds), written out: its min and max are overloads, each one more
        # function to compile
        if wx < x0:
            x0 = wx
        if wy < y0:
            y0 = wy
        if wx > x1:
            x1 = wx
        if wy > y1:
            y1 = wy
    return x0, y0, x1, y1


def place_outline(
    local: np.ndarray, x: float, y: float, c: float, s: float
) -> tuple[np.ndarray, float, float, float, float]:
    """The world coordinates (float64, whatever the input's type) of ``local`` ((N, 2), N >= 1)
    turned by the rotation whose cosine and sine are ``c`` and ``s`` and moved by (``x``,
    ``y``), and their bounds (min x, min y, max x, max y): :func:`place_into`."""
    out = np.empty((local.shape[0], 2))
    return (out, *place_into(out, local, x, y, c, s))
