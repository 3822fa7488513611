"""Which Pipecat service hears the caller and which speaks: `[voice] stt_service` and `tts_service`.

    [voice]
    stt_service = "appliance"        # the default: Whisper with the question's prompt, decoding as the caller speaks
    tts_service = "piper"            # Pipecat's own PiperTTSService, on the local voice file
    tts_options = { settings = { voice = "en_US-joe-medium" } }

A value is "appliance" (the appliance's own services, `listener.py` and `speaker.py`), a known name
(`KNOWN_STT`, `KNOWN_TTS`: Pipecat's local services, given the appliance's local model files so that nothing is
downloaded), or the dotted path of any Pipecat STT or TTS service class (`package.module.ClassName`). Its options
are the class's keyword arguments; `settings`, a table, becomes the class's own `Settings`. The settings file is
checked when it is read (`check_choice`), so a wrong name or option is reported with its key, not at the first call.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

APPLIANCE = "appliance"
KNOWN_STT = {"whisper": "pipecat.services.whisper.stt.WhisperSTTService"}
KNOWN_TTS = {"piper": "pipecat.services.piper.tts.PiperTTSService"}
_BASES = {"stt": "pipecat.services.stt_service.STTService", "tts": "pipecat.services.tts_service.TTSService"}
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class ServiceChoiceError(ValueError):
    """A service name or option that cannot be used; the message says what to write instead."""


def known_names(kind: str) -> dict[str, str]:
    return KNOWN_STT if kind == "stt" else KNOWN_TTS


def service_class(kind: str, name: str) -> type:
    """The Pipecat service class `name` ("whisper", or a dotted path) stands for; `kind` is "stt" or "tts"."""
    path = known_names(kind).get(name, name)
    if not _DOTTED.match(path):
        raise ServiceChoiceError(
            f'{name!r} is not a service: write "{APPLIANCE}", one of {", ".join(map(repr, known_names(kind)))}, '
            f'or the dotted path of a Pipecat {kind.upper()} service class (e.g. "{_example(kind)}")')
    module_name, _, class_name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ServiceChoiceError(f"cannot import {module_name!r} for {name!r} ({exc})") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ServiceChoiceError(f"{module_name!r} has no class {class_name!r}")
    base = _base(kind)
    if not issubclass(cls, base):
        raise ServiceChoiceError(f"{path} is not a Pipecat {kind.upper()} service (a subclass of {base.__name__})")
    return cls


def check_choice(kind: str, name: str, options: dict[str, Any]) -> None:
    """Raise ServiceChoiceError if `name` with `options` could not be built (without building it: no model loads)."""
    if name == APPLIANCE:
        if options:
            raise ServiceChoiceError(f"options are for another Pipecat service; the appliance's own {kind.upper()} "
                                     f"takes its settings from [voice] and [models]")
        return
    cls = service_class(kind, name)
    accepted = _keyword_arguments(cls)
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ServiceChoiceError(f"{cls.__name__} takes no option {', '.join(map(repr, unknown))} "
                                 f"(it takes {', '.join(sorted(accepted))})")
    if "settings" in options:
        _settings_of(cls, options["settings"])


def build_service(kind: str, name: str, options: dict[str, Any], defaults: dict[str, Any]) -> Any:
    """A new instance of the chosen Pipecat service: `defaults` (the local model files, for a known name) under
    the options from the settings file; a `settings` table in either is merged, the options' keys winning."""
    cls = service_class(kind, name)
    kwargs = {**defaults, **options}
    settings = {**defaults.get("settings", {}), **options.get("settings", {})}
    if settings:
        kwargs["settings"] = _settings_of(cls, settings)
    return cls(**kwargs)


def local_model_options(kind: str, name: str, runtime: Any) -> dict[str, Any]:
    """For a known name, the options that point Pipecat's service at the appliance's own model files (so it
    loads them offline, as the appliance does); nothing for another service."""
    if kind == "stt" and name == "whisper":
        device = runtime.settings.device
        fell_back = runtime.report.stt_problem is not None   # the GPU could not run Whisper: the CPU, as the appliance
        return {"settings": {"model": str(runtime.transcriber.model_dir)},
                "device": "cpu" if fell_back else device.device,
                "compute_type": "int8" if fell_back else device.stt_compute_type}
    if kind == "tts" and name == "piper":
        voice_file = runtime.synthesizer.voice_path
        return {"settings": {"voice": voice_file.name.removesuffix(".onnx")}, "download_dir": voice_file.parent}
    return {}


def _settings_of(cls: type, table: Any) -> Any:
    settings_class = getattr(cls, "Settings", None)
    if not isinstance(table, dict) or settings_class is None:
        raise ServiceChoiceError(f"settings must be a table of {cls.__name__}'s settings"
                                 if settings_class else f"{cls.__name__} has no settings table")
    try:
        return settings_class(**table)
    except TypeError as exc:
        raise ServiceChoiceError(f"{cls.__name__}'s settings: {exc}") from None


def _keyword_arguments(cls: type) -> set[str]:
    """Every keyword its constructor chain names (Pipecat's constructors pass **kwargs up to their bases)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for parameter in inspect.signature(init).parameters.values():
            if parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD) and parameter.name != "self":
                names.add(parameter.name)
    return names


def _base(kind: str) -> type:
    module_name, _, class_name = _BASES[kind].rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


def _example(kind: str) -> str:
    return next(iter(known_names(kind).values()))
