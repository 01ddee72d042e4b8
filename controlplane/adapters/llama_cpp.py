"""IntelligenceModule for any local GGUF file through llama-cpp-python (spec ``gguf:PATH``).

Guarantees, each one checked rather than hoped for:

* **The schema is a grammar or the call fails.** ``params.json_schema`` is compiled to a GBNF grammar with the
  converter llama-cpp-python ships (``llama_cpp.llama_grammar.json_schema_to_gbnf``). That converter silently drops
  keywords it does not implement (``minimum``, ``not``, ``uniqueItems``, ``maxItems`` on an array without ``items``,
  ``oneOf`` exclusivity, ...) and llama-cpp-python's chat handlers swap a schema they cannot convert for generic JSON.
  We never go through those handlers, and before converting we walk the schema along the converter's own decision
  order: every constraint keyword it would not enforce raises :class:`ModelError` naming the JSON path and keyword.
  The GBNF is then parsed by llama.cpp itself (``llama_sampler_init_grammar``); a NULL sampler is a ModelError too.
* **Deterministic.** Temperature 0 by default: greedy decoding, exactly "mask the vocabulary with the grammar, take
  the argmax", computed without a whole-vocabulary grammar pass per token (see :func:`_greedy`), plus one rule for
  small models: no 4-token run may repeat inside one JSON string value. Fixed seed; one model per file per process;
  the KV entries of the shared prompt prefix (system prompt + worked examples) are reused bit-for-bit.
* **Untrusted text stays text.** Control-token text (``<|im_start|>``...) inside message content is broken up before
  the prompt is tokenized with special tokens parsed.
* **Every call is accounted for.** FinishReason (stop / max_tokens / error), tokens in and out, latency.
* **Clear failures.** A missing, unreadable or non-GGUF file raises ModelError naming ``--model (or
  CONTROLPLANE_MODEL)``; ``load_model`` turns it into a ConfigurationError.

Prompt: the model's own chat template (``tokenizer.chat_template`` in the GGUF metadata) when it has one; otherwise
the plain format in :func:`plain_prompt`, measured on the Gemma 3 270M base model (see ``bench/models.py``).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from controlplane.contracts import FinishReason
from controlplane.model_boundary import (
    AssembledContext,
    ChatMessage,
    GenerationParams,
    IntelligenceResponse,
    ModelError,
    ModuleMetadata,
    sha256_file,
)

from . import MODEL_SETTING

# llama.cpp's OpenMP threads spin while they wait. On a busy 2-core machine spinning threads starve each other:
# measured here, one grammar-constrained answer took 148 s with spinning threads and 13 s with passive waiting.
# libgomp reads this when llama-cpp-python is first imported, so controlplane.adapters sets it too. A user setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

GGUF_MAGIC = b"GGUF"
DEFAULT_N_CTX = 4096
DEFAULT_SEED = 0


def progress(message: str) -> None:
    """Progress of long steps (assembly, load) on stderr, so stdout stays clean for --json output."""
    print(f"[controlplane] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------------------------
# Schema -> grammar, failing closed
# --------------------------------------------------------------------------------------------------------------------

class UnsupportedSchema(ModelError):
    """The JSON Schema cannot be enforced by a llama.cpp grammar; generation is refused rather than left unconstrained."""


# Keywords that never constrain a value (annotations and containers of definitions).
_ANNOTATIONS = frozenset(
    {"title", "description", "examples", "default", "$schema", "$id", "$comment", "deprecated", "readOnly",
     "writeOnly", "$defs", "definitions"}
)
# Formats the converter turns into a grammar; any other "format" would be silently ignored.
_FORMATS = frozenset({"date", "time", "date-time", "uuid", "uuid1", "uuid2", "uuid3", "uuid4", "uuid5"})
_PRIMITIVES = frozenset({"boolean", "number", "integer", "string", "null", "array", "object"})


def _problem(path: str, message: str) -> UnsupportedSchema:
    return UnsupportedSchema(
        f"JSON schema cannot be enforced as a llama.cpp grammar at {path}: {message}; refusing to generate without "
        f"it (no fallback to generic JSON). Simplify the schema or use a model adapter that enforces it."
    )


def check_enforceable(schema: Any, path: str = "$", root: Any = None) -> None:
    """Raise UnsupportedSchema if llama-cpp-python's converter would drop any constraint of ``schema``.

    Mirrors the branch order of ``SchemaConverter.visit`` in llama-cpp-python 0.3.36: the converter picks ONE branch
    per schema node and ignores every keyword that branch does not read, so a keyword outside the chosen branch's
    set is a constraint that would silently vanish.
    """
    root = schema if root is None else root
    if isinstance(schema, bool) or not isinstance(schema, dict):
        raise _problem(path, f"expected a schema object, got {type(schema).__name__} {schema!r}")
    keys = set(schema) - _ANNOTATIONS
    schema_type = schema.get("type")

    def only(allowed: set[str], branch: str) -> None:
        extra = sorted(keys - allowed)
        if extra:
            raise _problem(path, f"keyword(s) {', '.join(extra)} would be ignored next to {branch}")

    if "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise _problem(path, f"only local $ref ('#/...') can be resolved offline, not {ref!r}")
        only({"$ref"}, "$ref")
        target: Any = root
        for part in ref[2:].split("/"):
            if not isinstance(target, dict) or part not in target:
                raise _problem(path, f"$ref {ref!r} does not resolve")
            target = target[part]
        return  # the target is checked where it is defined (in $defs) -- see below
    if "oneOf" in schema:
        raise _problem(path, "oneOf (the grammar enforces anyOf; exactly-one would be lost)")
    if "anyOf" in schema:
        only({"anyOf"}, "anyOf")
        for i, alternative in enumerate(schema["anyOf"]):
            check_enforceable(alternative, f"{path}.anyOf[{i}]", root)
        return
    if isinstance(schema_type, list):
        only({"type"}, "a list of types")
        unknown = [t for t in schema_type if t not in _PRIMITIVES]
        if unknown:
            raise _problem(path, f"unknown type(s) {unknown}")
        return
    if "const" in schema:
        only({"const", "type"}, "const")
        return
    if "enum" in schema:
        if not schema["enum"]:
            raise _problem(path, "empty enum (no value could ever be emitted)")
        only({"enum", "type"}, "enum")
        return
    if schema_type in (None, "object") and (
        "properties" in schema or ("additionalProperties" in schema and schema["additionalProperties"] is not True)
    ):
        only({"type", "properties", "required", "additionalProperties"}, "an object with properties")
        for name, sub in schema.get("properties", {}).items():
            check_enforceable(sub, f"{path}.{name}", root)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            check_enforceable(extra, f"{path}.additionalProperties", root)
        missing = set(schema.get("required", [])) - set(schema.get("properties", {}))
        if missing and extra is not True and not isinstance(extra, dict):
            raise _problem(path, f"required properties {sorted(missing)} are not in properties")
        _check_defs(schema, path, root)
        return
    if schema_type in (None, "object") and "allOf" in schema:
        raise _problem(path, "allOf (the grammar merges only the properties of its parts)")
    if schema_type in (None, "array") and ("items" in schema or "prefixItems" in schema):
        items = schema.get("items") or schema["prefixItems"]
        if isinstance(items, list) or "prefixItems" in schema:
            only({"type", "prefixItems"} if "prefixItems" in schema else {"type", "items"}, "a tuple array")
            for i, item in enumerate(items):
                check_enforceable(item, f"{path}[{i}]", root)
        else:
            only({"type", "items", "minItems", "maxItems"}, "an array")
            check_enforceable(items, f"{path}[]", root)
        return
    if schema_type in (None, "string") and "pattern" in schema:
        only({"type", "pattern"}, "pattern")
        _check_pattern(schema["pattern"], path)
        return
    if "format" in schema:
        if schema_type not in (None, "string") or schema["format"] not in _FORMATS:
            raise _problem(path, f"format {schema['format']!r} is not enforced by the grammar")
        only({"type", "format"}, "format")
        return
    if schema_type == "string" and ("minLength" in schema or "maxLength" in schema):
        only({"type", "minLength", "maxLength"}, "a length-bounded string")
        return
    if schema_type == "object" or not keys:
        # additionalProperties: true is the default, so the free-form object's grammar loses nothing by ignoring it
        only({"type", "additionalProperties"} if schema.get("additionalProperties") is True else {"type"},
             "a free-form object")
        _check_defs(schema, path, root)
        return
    if schema_type not in _PRIMITIVES:
        raise _problem(path, f"no type the grammar understands (type={schema_type!r})")
    only({"type"}, f"type {schema_type}")
    _check_defs(schema, path, root)


def _check_defs(schema: dict[str, Any], path: str, root: Any) -> None:
    for container in ("$defs", "definitions"):
        for name, sub in (schema.get(container) or {}).items():
            check_enforceable(sub, f"{path}.{container}.{name}", root)


def _check_pattern(pattern: Any, path: str) -> None:
    if not isinstance(pattern, str) or not pattern.startswith("^") or not pattern.endswith("$"):
        raise _problem(path, f"pattern {pattern!r} must be anchored with ^...$ to become a grammar")


@lru_cache(maxsize=256)
def _schema_to_gbnf(schema_text: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = json.loads(schema_text)
    check_enforceable(schema)
    _check_defs(schema, "$", schema)
    try:
        gbnf = json_schema_to_gbnf(schema_text)
    except Exception as exc:  # the converter signals unsupported input with assert/ValueError/KeyError alike
        raise UnsupportedSchema(
            f"JSON schema cannot be converted to a llama.cpp grammar ({type(exc).__name__}: {exc}); refusing to "
            f"generate without it (no fallback to generic JSON)"
        ) from exc
    return _strict_json_chars(gbnf)


# llama-cpp-python 0.3.36's string character rule is [^"\\], which admits raw control characters (a literal newline
# inside a string), i.e. output that strict JSON parsers reject. Measured: Gemma 3 270M emits such newlines. Upstream
# llama.cpp excludes U+0000-U+001F and U+007F; we do the same.
_LOOSE_CHAR = re.compile(r'^(char[0-9]*) ::= \[\^"\\\\\] \|', re.MULTILINE)


def _strict_json_chars(gbnf: str) -> str:
    return _LOOSE_CHAR.sub(lambda m: m.group(1) + r' ::= [^"\\\x7F\x00-\x1F] |', gbnf)


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """GBNF for a JSON Schema, or UnsupportedSchema. Cached by the schema's text.

    Key order is kept (not sorted): the grammar emits properties in schema order, and the order is part of the prompt
    design (modeLabel first, a claim's text before its evidence ids).
    """
    return _schema_to_gbnf(json.dumps(schema))


# --------------------------------------------------------------------------------------------------------------------
# Loading, once per process per file
# --------------------------------------------------------------------------------------------------------------------

def check_gguf_file(path: Path) -> None:
    """Fail fast (and cheaply) on a missing, unreadable or non-GGUF model file."""
    if not path.exists():
        raise ModelError(f"model file not found: {path}; set {MODEL_SETTING} to an existing .gguf file")
    if not path.is_file():
        raise ModelError(f"model path is not a file: {path}; set {MODEL_SETTING} to a .gguf file")
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc}; set {MODEL_SETTING} to a readable .gguf file")
    if head[:4] != GGUF_MAGIC:
        raise ModelError(
            f"not a GGUF model file (bad magic {head[:4]!r}): {path}; set {MODEL_SETTING} to a llama.cpp .gguf file"
        )
    version = int.from_bytes(head[4:8], "little")
    if version not in (2, 3):
        raise ModelError(f"unsupported GGUF version {version} in {path}; set {MODEL_SETTING} to a GGUF v2/v3 file")


@dataclass
class _Loaded:
    llama: Any
    load_seconds: float
    chat_template: str | None
    # Tokens of the system-prompt prefix whose KV entries are in the context, evaluated as their own batch.
    prefix: tuple[int, ...] = ()
    # One generation at a time per model (a llama.cpp context is not thread-safe; the server calls from threads).
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Matches the text of the model's control tokens (<|im_start|>, <start_of_turn>, <eos>, ...).
    control: re.Pattern[str] | None = None


_LOCK = threading.Lock()
_LOADED: dict[tuple[str, int], _Loaded] = {}
_HASHES: dict[tuple[str, int, int], str] = {}


def _load(path: Path, n_ctx: int, n_threads: int | None, seed: int) -> _Loaded:
    key = (str(path.resolve()), n_ctx)
    with _LOCK:
        loaded = _LOADED.get(key)
        if loaded is not None:
            return loaded
        check_gguf_file(path)
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError(
                f"llama-cpp-python is not installed ({exc}); run ./run setup, or choose another model with "
                f"{MODEL_SETTING}"
            ) from exc
        size_mb = path.stat().st_size / 1e6
        progress(f"loading model {path.name} ({size_mb:.0f} MB)...")
        started = time.perf_counter()
        try:
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads or max(1, min(os.cpu_count() or 2, 8)),
                n_batch=512,
                seed=seed,
                verbose=False,
            )
        except Exception as exc:  # llama.cpp reports a corrupt file as a bare ValueError
            raise ModelError(
                f"llama.cpp could not load {path} ({exc}); the file may be truncated or corrupt, or not a model llama.cpp "
                f"{llama_cpp.__version__} supports; set {MODEL_SETTING} to a working .gguf file"
            ) from exc
        seconds = time.perf_counter() - started
        progress(f"model loaded in {seconds:.1f} s")
        template = llama.metadata.get("tokenizer.chat_template") or None
        loaded = _Loaded(llama, seconds, template, control=_control_token_pattern(llama))
        _LOADED[key] = loaded
        return loaded


@atexit.register
def _close_all() -> None:
    """Free the models before interpreter teardown (llama-cpp-python's __del__ fails noisily once modules are gone)."""
    with _LOCK:
        loaded = list(_LOADED.values())
        _LOADED.clear()
    for entry in loaded:
        with contextlib.suppress(Exception):  # at exit: a model that cannot close cleanly is freed by the OS anyway
            entry.llama.close()


def _control_token_pattern(llama: Any) -> re.Pattern[str] | None:
    from llama_cpp import llama_cpp as lib

    vocab = llama._model.vocab
    texts = set()
    for token in range(llama.n_vocab()):
        if lib.llama_vocab_get_attr(vocab, token) & lib.LLAMA_TOKEN_ATTR_CONTROL:
            text = lib.llama_vocab_get_text(vocab, token).decode("utf-8", "replace")
            if len(text) > 1:
                texts.add(text)
    if not texts:
        return None
    return re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)))


def neutralize_control_text(text: str, pattern: re.Pattern[str] | None) -> str:
    """Break up control-token text inside message content (``<|im_start|>`` -> ``< |im_start|>``).

    The prompt is tokenized with special tokens parsed (the chat template's markup needs that), so evidence or a user
    message containing ``<|im_end|><|im_start|>system`` would otherwise open a forged system turn.
    """
    if pattern is None:
        return text
    return pattern.sub(lambda m: m.group(0)[0] + " " + m.group(0)[1:], text)


def file_sha256(path: Path) -> str:
    """sha256 of the model file, computed once per (path, size, mtime) in this process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _LOCK:
        known = _HASHES.get(key)
    if known is None:
        known = sha256_file(str(path))
        with _LOCK:
            _HASHES[key] = known
    return known


def remember_sha256(path: Path, digest: str) -> None:
    """Record a hash computed (or verified) elsewhere, e.g. by the embedded package's assembly."""
    stat = path.stat()
    with _LOCK:
        _HASHES[(str(path.resolve()), stat.st_size, stat.st_mtime_ns)] = digest


# --------------------------------------------------------------------------------------------------------------------
# Prompt formats
# --------------------------------------------------------------------------------------------------------------------

PLAIN_ANSWER_CUE = "ANSWER: "


def plain_prompt(messages: Sequence[ChatMessage], cue: bool = True) -> str:
    """Prompt for a model without a chat template (a base model): instructions, turns, then an answer cue.

    A base model continues text, so the prompt ends where the JSON answer starts.
    """
    parts = []
    for message in messages:
        if message.role == "system" or message.role == "user":
            parts.append(message.content.strip())
        else:
            parts.append(PLAIN_ANSWER_CUE + message.content.strip())
    return "\n\n".join(parts) + "\n\n" + (PLAIN_ANSWER_CUE if cue else "")


def _template_prompt(loaded: _Loaded, messages: Sequence[ChatMessage], add_generation_prompt: bool = True) -> str:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    llama = loaded.llama
    eos = llama._model.token_get_text(llama.token_eos()) if llama.token_eos() >= 0 else ""
    bos = llama._model.token_get_text(llama.token_bos()) if llama.token_bos() >= 0 else ""
    formatter = Jinja2ChatFormatter(
        template=loaded.chat_template or "", eos_token=eos, bos_token=bos, add_generation_prompt=add_generation_prompt
    )
    try:
        return formatter(messages=[{"role": m.role, "content": m.content} for m in messages]).prompt
    except Exception as exc:
        raise ModelError(f"the model's chat template failed to render ({type(exc).__name__}: {exc})") from exc


# --------------------------------------------------------------------------------------------------------------------
# The adapter
# --------------------------------------------------------------------------------------------------------------------

class LlamaCppModel:
    """IntelligenceModule over one GGUF file. Loads lazily, once per process; stateless between calls."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        model_id: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        seed: int = DEFAULT_SEED,
        prompt_format: str = "auto",
        known_sha256: str | None = None,
    ):
        if prompt_format not in ("auto", "template", "plain"):
            raise ModelError(f"prompt_format must be auto, template or plain, not {prompt_format!r}")
        self.path = Path(path).expanduser()
        check_gguf_file(self.path)
        self.model_id = model_id or f"gguf:{self.path.name}"
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.prompt_format = prompt_format
        if known_sha256:
            remember_sha256(self.path, known_sha256)

    # -- protocol -----------------------------------------------------------------------------------------------
    def is_ready(self) -> bool:
        try:
            self._loaded()
        except ModelError:
            return False
        return True

    def metadata(self) -> ModuleMetadata:
        details: dict[str, Any] = {"path": str(self.path), "backend": "llama.cpp", "seed": self.seed}
        try:
            import llama_cpp

            details["llama_cpp_python"] = llama_cpp.__version__
        except ImportError:
            pass
        with _LOCK:
            loaded = _LOADED.get((str(self.path.resolve()), self.n_ctx))
        if loaded is not None:
            details["load_seconds"] = round(loaded.load_seconds, 3)
            details["prompt_format"] = self._format_name(loaded)
            details["n_ctx_train"] = loaded.llama._model.n_ctx_train()
        return ModuleMetadata(
            model_id=self.model_id,
            model_hash=file_sha256(self.path),
            max_context_length=self.n_ctx,
            supports_functions=False,
            supports_json_schema=True,
            local_only=True,
            details=details,
        )

    def generate(self, query: str, context: AssembledContext, params: GenerationParams) -> IntelligenceResponse:
        started = time.perf_counter()
        loaded = self._loaded()
        llama = loaded.llama
        if params.json_schema is not None:
            self.grammar_for(params.json_schema)  # fail before any work if the schema cannot be enforced
        messages = self._messages(context, params, loaded)
        prompt = self.render_prompt(messages)
        tokens = self._tokenize(llama, prompt)
        if not tokens:
            raise ModelError("empty prompt: the context has no messages")
        room = self.n_ctx - len(tokens)
        if room < 1:
            return self._error(
                started, len(tokens),
                f"prompt of {len(tokens)} tokens does not fit the context window of {self.n_ctx}; lower the "
                f"evidence budget (budgets.max_context_tokens) or raise n_ctx",
            )
        max_tokens = max(1, min(params.max_tokens, room))
        seed = params.seed if params.seed is not None else self.seed
        with loaded.lock:
            return self._generate_locked(started, loaded, messages, tokens, max_tokens, params, seed)

    def _generate_locked(self, started: float, loaded: _Loaded, messages: tuple[ChatMessage, ...],
                         tokens: list[int], max_tokens: int, params: GenerationParams, seed: int,
                         ) -> IntelligenceResponse:
        llama = loaded.llama
        grammar = self.grammar_for(params.json_schema) if params.json_schema is not None else None
        try:
            if params.temperature <= 0:
                out, reason = _greedy(llama, tokens, max_tokens, grammar, params.stop_sequences,
                                      loaded=loaded, prefix_len=self._prefix_len(loaded, messages, tokens))
                text = llama.detokenize(out).decode("utf-8", errors="replace")
                text = _cut_at_stop(text, params.stop_sequences)
                out_tokens = len(out)
            else:
                text, out_tokens, reason = _sampled(loaded, tokens, max_tokens, grammar, params, seed)
        except ModelError:
            raise
        except Exception as exc:
            return self._error(started, len(tokens), f"llama.cpp generation failed: {type(exc).__name__}: {exc}")
        return IntelligenceResponse(
            text=text,
            tokens_used=out_tokens,
            tokens_in=len(tokens),
            finish_reason=self._finish(reason, out_tokens, max_tokens),
            latency_ms=(time.perf_counter() - started) * 1000,
            model_id=self.model_id,
        )

    # -- pieces (public so the benchmark measures exactly what generate() does) ----------------------------------
    def grammar_for(self, schema: dict[str, Any]) -> str:
        """The GBNF grammar for a schema, checked by llama.cpp's own parser; UnsupportedSchema if not enforceable."""
        from llama_cpp import llama_cpp as lib

        gbnf = schema_to_gbnf(schema)
        loaded = self._loaded()
        # Parse with llama.cpp itself before generating: llama-cpp-python adds a NULL sampler for a grammar that
        # fails to parse instead of raising.
        sampler = lib.llama_sampler_init_grammar(loaded.llama._model.vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise UnsupportedSchema("llama.cpp rejected the grammar generated from the JSON schema; refusing to generate")
        lib.llama_sampler_free(sampler)
        return gbnf

    def render_prompt(self, messages: Sequence[ChatMessage]) -> str:
        loaded = self._loaded()
        if self._format_name(loaded) == "template":
            return _template_prompt(loaded, messages)
        return plain_prompt(messages)

    def _prefix_len(self, loaded: _Loaded, messages: Sequence[ChatMessage], tokens: list[int]) -> int:
        """Token count of everything before the last message (system prompt, worked examples, history), if that is
        an exact token prefix of the prompt; else 0. For single-turn requests it is the same for every request."""
        if len(messages) < 2:
            return 0
        if self._format_name(loaded) == "template":
            text = _template_prompt(loaded, messages[:-1], add_generation_prompt=False)
        else:
            text = plain_prompt(messages[:-1], cue=False)
        head = self._tokenize(loaded.llama, text)
        # Drop the last token: a tokenizer may merge it with what follows in the full prompt.
        head = head[:-1]
        return len(head) if head and tokens[: len(head)] == head else 0

    # -- internals ------------------------------------------------------------------------------------------------
    def _loaded(self) -> _Loaded:
        return _load(self.path, self.n_ctx, self.n_threads, self.seed)

    def _format_name(self, loaded: _Loaded) -> str:
        if self.prompt_format == "template" and not loaded.chat_template:
            raise ModelError(f"{self.path.name} has no chat template in its metadata; use prompt_format='plain'")
        if self.prompt_format == "auto":
            return "template" if loaded.chat_template else "plain"
        return self.prompt_format

    @staticmethod
    def _messages(context: AssembledContext, params: GenerationParams, loaded: _Loaded) -> tuple[ChatMessage, ...]:
        messages = context.messages
        if params.system_prompt is not None:
            messages = (ChatMessage("system", params.system_prompt), *(m for m in messages if m.role != "system"))
        return tuple(ChatMessage(m.role, neutralize_control_text(m.content, loaded.control)) for m in messages)

    @staticmethod
    def _tokenize(llama: Any, prompt: str) -> list[int]:
        bos_id = llama.token_bos()
        bos_text = llama._model.token_get_text(bos_id) if bos_id >= 0 else ""
        add_bos = not (bos_text and prompt.startswith(bos_text))  # a template that writes BOS itself gets no second
        return llama.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    @staticmethod
    def _finish(reason: str | None, out: int, max_tokens: int) -> FinishReason:
        # llama-cpp-python reports "length" when the budget ran out and "stop" for EOS, a completed grammar or a stop
        # string alike; it cannot tell the last two apart, so both are STOP.
        if reason == "length" or (reason is None and out >= max_tokens):
            return FinishReason.MAX_TOKENS
        return FinishReason.STOP

    def _error(self, started: float, tokens_in: int, message: str) -> IntelligenceResponse:
        return IntelligenceResponse(
            text="",
            tokens_used=0,
            tokens_in=tokens_in,
            finish_reason=FinishReason.ERROR,
            latency_ms=(time.perf_counter() - started) * 1000,
            model_id=self.model_id,
            error=message,
        )


def _cut_at_stop(text: str, stops: Sequence[str]) -> str:
    cuts = [text.index(stop) for stop in stops if stop and stop in text]
    return text[: min(cuts)] if cuts else text


TOP_K_CHECK = 64
# Inside one JSON string value no run of this many tokens may occur twice. Measured: Gemma 3 270M otherwise loops on a
# sentence inside assistant_text until the token budget is gone (unparseable output); on SmolLM2 (20 prompts) the
# guard raised right-id citations from 0.38 to 0.46 and anchored claims from 0.40 to 0.50, validity 1.0 either way.
NO_REPEAT_NGRAM = 4


class _StringRepeats:
    """Tracks the JSON string value being generated and the token n-grams already used inside it.

    Scoped to one string: a claim's text may (and should) repeat a sentence of assistant_text, which is another
    string. Quotes and backslashes are ASCII, so scanning each token's bytes is exact even for split UTF-8.
    """

    def __init__(self, n: int):
        self.n = n
        self.in_string = False
        self.escape = False
        self.tokens: list[int] = []
        self.seen: set[tuple[int, ...]] = set()

    def repeats(self, token: int) -> bool:
        if not self.in_string or len(self.tokens) < self.n - 1:
            return False
        return tuple(self.tokens[-(self.n - 1):]) + (token,) in self.seen

    def push(self, token: int, piece: bytes) -> None:
        was_in = self.in_string
        opened = False
        for byte in piece:
            if self.in_string:
                if self.escape:
                    self.escape = False
                elif byte == 0x5C:  # backslash
                    self.escape = True
                elif byte == 0x22:  # quote
                    self.in_string = False
            elif byte == 0x22:
                self.in_string, opened = True, True
        if opened or not was_in:
            self.tokens, self.seen = [], set()
        if self.in_string:
            self.tokens.append(token)
            if len(self.tokens) >= self.n:
                self.seen.add(tuple(self.tokens[-self.n:]))


def _allowed(lib: Any, sampler: Any, array: Any, tokens: list[int], logits: Any) -> int | None:
    """The first of ``tokens`` (in order) that the grammar allows in its current state, or None."""
    import numpy as np

    n = len(tokens)
    array.candidates_data.id[:n] = tokens
    array.candidates_data.logit[:n] = logits[tokens]
    array.candidates_data.p[:n] = 0.0
    array.candidates.size = n
    array.candidates.sorted = False
    lib.llama_sampler_apply(sampler, ctypes.byref(array.candidates))
    ok = np.isfinite(array.candidates_data.logit[:n])
    if not ok.any():
        return None
    return int(array.candidates_data.id[int(np.argmax(ok))])


def _greedy(
    llama: Any, prompt: list[int], max_tokens: int, gbnf: str | None, stops: Sequence[str],
    stats: dict[str, int] | None = None, loaded: _Loaded | None = None, prefix_len: int = 0,
) -> tuple[list[int], str]:
    """Greedy decoding under a grammar, exactly equal to "mask the whole vocabulary, then argmax", but cheaper.

    llama-cpp-python applies the grammar to the whole vocabulary at every step (262k tokens for Gemma 3: measured
    0.8 tokens/s here). The argmax token is usually allowed, and then it IS the argmax of the masked logits; if not,
    the best allowed token among the top 64 is (every other token has a lower logit); only when none of those is
    allowed does a full pass run (llama.cpp's common sampler uses the same first check).
    Returns the generated tokens (EOS excluded) and "stop" or "length".

    Under a grammar one more rule applies: inside a JSON string value, a token that would repeat a run of
    NO_REPEAT_NGRAM tokens already used in that same string is skipped for the next best allowed one (unless the
    grammar allows nothing else). Deterministic; it ends sentence loops instead of truncating the JSON.

    The prompt is always evaluated in the same two pieces, the system-prompt prefix (``prefix_len`` tokens) and the
    rest, so the KV entries of a prefix left by an earlier call with the same prefix are bit-for-bit what evaluating
    it now would give; reusing them saves ~60% of prompt time and cannot change the output.
    """
    import numpy as np
    from llama_cpp import llama_cpp as lib
    from llama_cpp._internals import LlamaTokenDataArray

    vocab = llama._model.vocab
    n_vocab = llama.n_vocab()
    sampler = None
    if gbnf is not None:
        sampler = lib.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise UnsupportedSchema("llama.cpp rejected the grammar generated from the JSON schema; refusing to generate")
    one = LlamaTokenDataArray(n_vocab=1)
    topk = LlamaTokenDataArray(n_vocab=TOP_K_CHECK)
    full: LlamaTokenDataArray | None = None
    out: list[int] = []
    stats = stats if stats is not None else {}
    stats.update(topk=0, full=0)
    strings = _StringRepeats(NO_REPEAT_NGRAM)
    try:
        prefix = tuple(prompt[:prefix_len]) if 0 < prefix_len < len(prompt) else ()
        if prefix and loaded is not None and loaded.prefix == prefix and llama.n_tokens >= len(prefix):
            llama.n_tokens = len(prefix)  # keep the prefix's KV entries; eval() drops everything after them
        else:
            if loaded is not None:
                loaded.prefix = ()
            llama.reset()  # stateless: nothing of the previous call stays in the KV cache
            if prefix:
                llama.eval(list(prefix))
                if loaded is not None:
                    loaded.prefix = prefix
        llama.eval(prompt[len(prefix):])
        while len(out) < max_tokens:
            logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(n_vocab,))
            token = int(np.argmax(logits))
            if sampler is not None and (strings.repeats(token) or _allowed(lib, sampler, one, [token], logits) is None):
                # Next: the best of the top-k tokens that the grammar allows. Every token outside the top k has a
                # lower logit than every token inside, so if any of them is allowed it is the masked argmax.
                top = np.argpartition(-logits, TOP_K_CHECK)[:TOP_K_CHECK]
                top = [t for t in top[np.argsort(-logits[top], kind="stable")].tolist() if not strings.repeats(t)]
                picked = _allowed(lib, sampler, topk, top, logits) if top else None
                if picked is None:
                    if full is None:
                        full = LlamaTokenDataArray(n_vocab=n_vocab)
                    full.copy_logits(logits)
                    lib.llama_sampler_apply(sampler, ctypes.byref(full.candidates))
                    allowed = full.candidates_data.logit
                    if not np.isfinite(allowed.max()):
                        raise ModelError("the grammar allows no token at this point; the schema admits no value")
                    ranked = np.argsort(-allowed, kind="stable")
                    ranked = ranked[np.isfinite(allowed[ranked])].tolist()
                    fresh = [int(full.candidates_data.id[i]) for i in ranked if not strings.repeats(int(full.candidates_data.id[i]))]
                    picked = fresh[0] if fresh else int(full.candidates_data.id[ranked[0]])
                    stats["full"] += 1
                else:
                    stats["topk"] += 1
                token = picked
            if lib.llama_vocab_is_eog(vocab, token):
                return out, "stop"
            if sampler is not None:
                lib.llama_sampler_accept(sampler, token)
                strings.push(token, llama._model.token_to_piece(token))
            out.append(token)
            if stops and any(stop in llama.detokenize(out[-16:]).decode("utf-8", "ignore") for stop in stops):
                return out, "stop"
            llama.eval([token])
        return out, "length"
    finally:
        if sampler is not None:
            lib.llama_sampler_free(sampler)


def _sampled(
    loaded: _Loaded, prompt: list[int], max_tokens: int, gbnf: str | None, params: GenerationParams, seed: int
) -> tuple[str, int, str]:
    """Temperature > 0: llama-cpp-python's own sampler chain (grammar over the full vocabulary; slower)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    loaded.prefix = ()
    llama = loaded.llama
    llama.reset()
    llama.set_seed(seed)
    result = llama.create_completion(
        prompt=prompt,
        max_tokens=max_tokens,
        temperature=params.temperature,
        top_p=params.top_p,
        min_p=0.0,
        repeat_penalty=1.0,
        stop=list(params.stop_sequences) or None,
        seed=seed,
        grammar=LlamaGrammar.from_string(gbnf, verbose=False) if gbnf is not None else None,
    )
    choice = result["choices"][0]
    usage = result.get("usage") or {}
    return choice["text"], int(usage.get("completion_tokens", 0)), choice.get("finish_reason") or "stop"

