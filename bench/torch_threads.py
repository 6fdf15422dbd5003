"""PyTorch's thread count for the benches, its BLAS included.

torch.set_num_threads sets ATen's OpenMP threads (and MKL's, when PyTorch
was built with MKL). A PyTorch built against a generic BLAS (Debian's:
`BLAS_INFO=generic`, libblas.so.3 from OpenBLAS's pthreads build) leaves
OpenBLAS's own pool at its default, one thread per core, so a "1-thread"
run would still compute its matmuls (linear layers, attention's bmm) on
every core. set_threads sets both.
"""
import ctypes

import torch


def _openblas():
    """The OpenBLAS library this process has loaded, or None."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libopenblas" in line}
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        if hasattr(library, "openblas_set_num_threads"):
            return library
    return None


_OPENBLAS = _openblas()


def set_threads(count):
    """count threads for ATen and for the BLAS under it."""
    torch.set_num_threads(count)
    if _OPENBLAS is not None:
        _OPENBLAS.openblas_set_num_threads(ctypes.c_int(count))


def blas_threads():
    """OpenBLAS's thread count (None without OpenBLAS)."""
    if _OPENBLAS is None:
        return None
    _OPENBLAS.openblas_get_num_threads.restype = ctypes.c_int
    return _OPENBLAS.openblas_get_num_threads()
