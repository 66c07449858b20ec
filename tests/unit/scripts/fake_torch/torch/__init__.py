"""A stand-in for PyTorch, for the tests of scripts/torch_reference.py on a machine without one:
no device, no arithmetic. Every import appends a line to $FAKE_TORCH_IMPORTS; a timed copy or
matmul "takes" $FAKE_TORCH_COPY_MS or $FAKE_TORCH_MATMUL_MS each (CUDA events' elapsed_time: the
calls between the two events times that), so the
test chooses the rates the scripts compute. Nothing here is a measurement."""
import os

__version__ = "0.0-stand-in"

with open(os.environ["FAKE_TORCH_IMPORTS"], "a", encoding="utf-8") as _f:
    _f.write(f"import torch in process {os.getpid()}\n")

int8, int32, float16, bfloat16, float32, float64 = "int8", "int32", "float16", "bfloat16", "float32", "float64"
_last = ["copy"]


class _Tensor:
    def __init__(self, shape):
        self.shape = tuple(shape)

    def copy_(self, other):
        _last[0] = "copy"
        _calls["copy"] += 1
        return self

    def to(self, dtype):
        return self

    def t(self):
        return _Tensor(reversed(self.shape))

    def double(self):
        return self

    def item(self):
        return 1.0

    def __getitem__(self, index):
        return _Tensor((1,))

    def __mul__(self, other):
        return self

    __add__ = __mul__


def randint(low, high, shape, dtype=None, device=None, generator=None):
    return _Tensor(shape)


def rand(shape, device=None, generator=None):
    return _Tensor(shape)


def empty_like(t):
    return _Tensor(t.shape)


def equal(a, b):
    return True


def matmul(a, b):
    _last[0] = "matmul"
    _calls["matmul"] += 1
    return _Tensor((a.shape[0], b.shape[1]))


def dot(a, b):
    return _Tensor((1,))


class Generator:
    def __init__(self, device=None):
        pass

    def manual_seed(self, seed):
        return self


_calls = {"copy": 0, "matmul": 0}  # calls so far: an event records the count when it is recorded


class _Event:
    def __init__(self, enable_timing=False):
        self._at = dict(_calls)

    def record(self):
        self._at = dict(_calls)

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        # Each call between the two events "takes" the kind's milliseconds (at least one call).
        kind = _last[0]
        return max(1, other._at[kind] - self._at[kind]) * float(os.environ[f"FAKE_TORCH_{kind.upper()}_MS"])


class _Cuda:
    Event = _Event

    @staticmethod
    def is_available():
        return os.environ.get("FAKE_TORCH_NO_CUDA") != "1"

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def set_device(device):
        pass

    @staticmethod
    def get_device_name(device):
        return "Stand-in GPU"

    @staticmethod
    def synchronize():
        pass


class _Matmul:
    allow_tf32 = False


class _Backends:
    class cuda:  # noqa: N801
        matmul = _Matmul


class _Version:
    cuda = "0.0"


cuda = _Cuda
backends = _Backends
version = _Version
