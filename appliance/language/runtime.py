"""The language model: llama.cpp in-process, loaded once and shared by every call.

`LanguageModel.shared(settings)` loads the GGUF file the settings choose (a
manifest name or a local path, see appliance.models) the first time and hands
the same instance to every later caller. llama.cpp is not thread-safe, so the
calls queue on one lock; a call whose deadline passes while it waits, or while
it generates, stops at once and raises LateReply.

Prompts are written with the chat template stored in the GGUF file. A call may
start the answer itself (`answer_prefix`, e.g. '{"intent": "'), so the model
only generates what is left: fewer tokens, less time. llama.cpp's own logging is
off. Only this module imports llama_cpp, and only when a model is loaded.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from ..settings import Settings, load_settings
from .time_budget import LateReply

log = logging.getLogger("appliance.language")

CONTEXT_TOKENS = 2048


class LanguageModel:
    _shared: dict[tuple, LanguageModel] = {}
    _shared_lock = threading.Lock()

    def __init__(self, path: str | Path, *, threads: int = 1, gpu_layers: int = 0, name: str | None = None,
                 context_tokens: int = CONTEXT_TOKENS):
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.path = Path(path)
        self.name = name or self.path.name
        started = time.perf_counter()
        self._llama = Llama(model_path=str(self.path), n_ctx=context_tokens, n_threads=threads,
                            n_threads_batch=threads, n_gpu_layers=gpu_layers, seed=0, verbose=False)
        template = self._llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{self.path.name} has no chat template: use an instruct (chat) model")
        eos, bos = self._llama.token_eos(), self._llama.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template, eos_token=self._token_text(eos), bos_token=self._token_text(bos), stop_token_ids=[eos])
        self.load_ms = (time.perf_counter() - started) * 1000
        self._lock = threading.Lock()
        log.info("loaded %s in %.0f ms (%d thread(s), %d GPU layers)", self.name, self.load_ms, threads, gpu_layers)

    def _token_text(self, token: int) -> str:
        return self._llama._model.token_get_text(token) if token != -1 else ""

    @classmethod
    def shared(cls, settings: Settings | None = None) -> LanguageModel:
        """The process's model for these settings (loaded on first use); raises ModelUnavailable."""
        from ..models import resolve

        settings = settings or load_settings()
        resolved = resolve("llm", settings)
        key = (resolved.path, settings.device.threads, settings.device.llm_gpu_layers)
        with cls._shared_lock:
            model = cls._shared.get(key)
            if model is None:
                model = cls(resolved.path, threads=settings.device.threads,
                            gpu_layers=settings.device.llm_gpu_layers, name=resolved.name)
                cls._shared[key] = model
        return model

    def prompt_for(self, messages: list[dict[str, str]]) -> tuple[str, list[str]]:
        """The GGUF chat template applied to `messages`, ready for the assistant; and its stop strings."""
        formatted = self._formatter(messages=messages)
        stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
        return formatted.prompt, stop

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int, grammar: str | None = None,
             deadline: float | None = None, answer_prefix: str = "", stop: tuple[str, ...] = ()) -> str:
        """The assistant's answer to `messages`, after `answer_prefix` (not repeated in the result).

        `grammar` (GBNF) constrains what is generated after the prefix; generation
        also ends at the template's end-of-turn token and at any of `stop`.
        `deadline` is a time.monotonic() value: waiting for the model or
        generating past it raises LateReply.
        """
        from llama_cpp import LlamaGrammar

        prompt, template_stop = self.prompt_for(messages)
        compiled = LlamaGrammar.from_string(grammar, verbose=False) if grammar else None
        wait = -1 if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._lock.acquire(timeout=wait):
            raise LateReply("the language model stayed busy past the deadline")
        try:
            if deadline is not None and time.monotonic() >= deadline:
                raise LateReply("the deadline passed before the model was free")
            pieces: list[str] = []
            stream: Any = self._llama.create_completion(
                prompt + answer_prefix, max_tokens=max_tokens, temperature=0.0, grammar=compiled, stop=template_stop + list(stop),
                stream=True)
            try:
                for chunk in stream:
                    if deadline is not None and time.monotonic() > deadline:
                        raise LateReply("generation ran past the deadline")
                    pieces.append(chunk["choices"][0].get("text") or "")
            finally:
                stream.close()
            return "".join(pieces)
        finally:
            self._lock.release()
