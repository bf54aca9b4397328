"""How results travel from the kernel to the grader: JSON with tensors as base64 bytes, never pickle.

The grader decodes what an untrusted kernel sent, so decoding accepts only plain
values, tensors of a few dtypes whose byte count matches their shape, and a
bounded size; anything else decodes to None and the judge then fails the cell.
"""
from __future__ import annotations

import base64
import math

import torch

MIME = "application/vnd.attn-course.results+json"
DTYPES = {str(d).replace("torch.", ""): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)}
MAX_ELEMENTS = 1 << 20


class Opaque:
    """An object that is not a plain value or a tensor; only its type's name travels."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self):
        return self.kind


def encode(value, depth: int = 0):
    if depth > 8:
        return {"o": "deep"}
    if isinstance(value, torch.Tensor):
        return _encode_tensor(value)
    if value is None or isinstance(value, (bool, int, str)):
        return {"v": value}
    if isinstance(value, float):
        return {"v": value} if math.isfinite(value) else {"f": repr(value)}
    if isinstance(value, (tuple, list)):
        return {"l": [encode(v, depth + 1) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        return {"d": [[str(k), encode(v, depth + 1)] for k, v in value.items()]}
    return {"o": type(value).__name__}


def _encode_tensor(x: torch.Tensor) -> dict:
    x = x.detach()
    if type(x) is not torch.Tensor and type(x) is not torch.nn.Parameter:
        x = x.as_subclass(torch.Tensor)
    meta = {"t": str(x.dtype).replace("torch.", ""), "s": list(x.shape), "dev": x.device.type}
    if x.device.type == "meta" or meta["t"] not in DTYPES or x.numel() > MAX_ELEMENTS:
        return meta  # no values: the device and shape may still be what is judged
    x = x.cpu().contiguous()
    raw = x.view(torch.int16) if x.dtype == torch.bfloat16 else x
    meta["b"] = base64.b64encode(raw.numpy().tobytes()).decode("ascii")
    return meta


def decode(node, depth: int = 0):
    if not isinstance(node, dict) or depth > 8:
        return None
    if "v" in node:
        v = node["v"]
        return v if v is None or isinstance(v, (bool, int, float, str)) else None
    if "f" in node:
        return float(node["f"]) if node["f"] in ("nan", "inf", "-inf") else None
    if "l" in node and isinstance(node["l"], list):
        items = [decode(v, depth + 1) for v in node["l"]]
        return tuple(items) if node.get("tuple") else items
    if "d" in node and isinstance(node["d"], list):
        return {str(k): decode(v, depth + 1) for k, v in node["d"] if isinstance(k, str)}
    if "o" in node:
        return Opaque(str(node["o"]))
    if "t" in node:
        return _decode_tensor(node)
    return None


class NoValues:
    """A tensor that travelled without values (on the meta device, say): its dtype, shape and device."""

    def __init__(self, dtype, shape, device):
        self.dtype, self.shape, self.device = dtype, torch.Size(shape), torch.device(device)


def _decode_tensor(node):
    dtype = DTYPES.get(node.get("t"))
    shape = node.get("s")
    if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
        return None
    if math.prod(shape) > MAX_ELEMENTS:
        return None
    if "b" not in node or dtype is None:
        return NoValues(dtype, shape, node.get("dev", "cpu")) if node.get("dev") in ("meta", "cpu", "cuda") else None
    try:
        raw = bytearray(base64.b64decode(node["b"], validate=True))
    except (ValueError, TypeError):
        return None
    storage = torch.int16 if dtype == torch.bfloat16 else dtype
    size = torch.empty((), dtype=storage).element_size()
    if len(raw) != size * math.prod(shape):
        return None
    x = torch.frombuffer(raw, dtype=storage) if raw else torch.empty(0, dtype=storage)
    x = x.reshape(shape).clone()
    return x.view(torch.bfloat16) if dtype == torch.bfloat16 else x
