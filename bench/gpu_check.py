"""device = "cuda" on the machine at hand: does Whisper run on its GPU, and how fast, or why not.

    python bench/gpu_check.py [--model DIR] [--runs 5] [--clips DIR]

It goes the appliance's own start-up way (`appliance.voice.stt.load_transcriber`): the CUDA
libraries CTranslate2 opens by name are opened first, one second of silence is transcribed on the
GPU, and on any fault Whisper falls back to the CPU with the reason. It then times a transcription
of a four-second clip on the device Whisper ended on, and on the CPU for comparison, and writes the
"GPU" section of bench/RESULTS.md naming the card and the driver. `--model` defaults to the
installed Whisper (`appliance models install`); a machine without it can be given another
CTranslate2 Whisper folder, whose timings then say nothing about the default model. `--clips` gives a
folder of spoken wav clips (16-bit mono): each is transcribed on both devices, and the table says how many
came back with the same words and how long each took. The CUDA libraries the process actually opened are
listed by file, so a figure always says which cuBLAS and cuDNN it was measured with.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402


def _card() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or f"nvidia-smi: {out.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no nvidia-smi ({exc})"


def _clip(seconds: float = 4.0, rate: int = 16000) -> bytes:
    """A voiced-like signal (not speech): the timing of encode and decode, not the words, is measured."""
    t = np.arange(int(seconds * rate)) / rate
    wave = 0.2 * np.sin(2 * np.pi * 180 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t))
    return (wave * 32767).astype(np.int16).tobytes()


def _time(transcriber, runs: int) -> float:
    pcm = _clip()
    transcriber.transcribe(pcm, 16000)
    started = time.perf_counter()
    for _ in range(runs):
        transcriber.transcribe(pcm, 16000)
    return (time.perf_counter() - started) / runs * 1000


def _clips(folder: str) -> list[tuple[str, bytes, int]]:
    import wave
    out = []
    for path in sorted(Path(folder).glob("*.wav")):
        with wave.open(str(path)) as w:
            out.append((path.name, w.readframes(w.getnframes()), w.getframerate()))
    return out


def _words(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def _per_clip(transcriber, clips) -> list[tuple[str, float]]:
    """Each clip's words and milliseconds (after one untimed warm-up on the first)."""
    transcriber.transcribe(clips[0][1], clips[0][2])
    out = []
    for _, pcm, rate in clips:
        started = time.perf_counter()
        text = transcriber.transcribe(pcm, rate).text
        out.append((text, (time.perf_counter() - started) * 1000))
    return out


def _loaded_cuda_files() -> str:
    """The cuBLAS and cuDNN files this process has open (from its memory map), by real path."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return "unknown"
    files = sorted({line.split()[-1] for line in maps.splitlines()
                    if ("libcublas" in line or "libcudnn.so" in line) and "/" in line})
    return ", ".join(files) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a CTranslate2 Whisper folder (default: the installed one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clips", help="a folder of spoken wav clips to transcribe on both devices")
    parser.add_argument("--note", default="", help="a sentence on how this machine was set up, for the section")
    args = parser.parse_args()

    import ctranslate2

    from appliance.voice import cuda_libraries
    from appliance.voice.stt import load_transcriber

    if args.model:
        model, which = args.model, f"`{Path(args.model).name}` (given with --model)"
    else:
        from appliance.models import resolve
        from appliance.settings import load_settings

        model = resolve("stt", load_settings()).path
        which = "the default Whisper base"
    card, devices = _card(), ctranslate2.get_cuda_device_count()
    missing = cuda_libraries.preload()
    gpu, problem = load_transcriber(model, device="cuda", compute_type="float16", cpu_threads=2, workers=1)
    device = gpu.model.model.device
    gpu_ms = _time(gpu, args.runs)
    cpu, _ = load_transcriber(model, device="cpu", compute_type="int8", cpu_threads=2, workers=1)
    cpu_ms = _time(cpu, args.runs)
    clips = _clips(args.clips) if args.clips else []
    lines = [
        f"Card: {card}. Machine: {platform.node()}, Python {platform.python_version()}, CTranslate2 "
        f"{ctranslate2.__version__}; model: {which}.", "",
        "| check | result |", "|---|---|",
        f"| CUDA devices CTranslate2 sees | {devices} |",
        f"| CUDA libraries Whisper opens by name | {'all loadable' if not missing else 'missing ' + ', '.join(missing)} |",
        f"| device = \"cuda\": Whisper runs on | {device}{' (' + problem + ')' if problem else ''} |",
        f"| a 4 s clip there ({'float16' if device == 'cuda' else 'int8, 2 threads'}) | {gpu_ms:.0f} ms |",
        f"| the same clip on the CPU (int8, 2 threads) | {cpu_ms:.0f} ms |",
        f"| cuBLAS and cuDNN files opened | {_loaded_cuda_files()} |",
    ]
    if clips:
        on_gpu, on_cpu = _per_clip(gpu, clips), _per_clip(cpu, clips)
        same = sum(_words(g) == _words(c) for (g, _), (c, _) in zip(on_gpu, on_cpu))
        seconds = sum(len(pcm) / 2 / rate for _, pcm, rate in clips)
        lines += [
            f"| {len(clips)} spoken clips ({seconds:.0f} s of speech): same words on both devices | {same} of {len(clips)} |",
            f"| their mean time there / on the CPU | {np.mean([ms for _, ms in on_gpu]):.0f} ms / "
            f"{np.mean([ms for _, ms in on_cpu]):.0f} ms |",
            "", "| clip | " + str(device) + " | ms | cpu | ms |", "|---|---|---|---|---|",
            *(f"| {name} | {g} | {gms:.0f} | {c} | {cms:.0f} |"
              for (name, _, _), (g, gms), (c, cms) in zip(clips, on_gpu, on_cpu)),
        ]
    if args.note:
        lines += ["", args.note]
    body = "## GPU: device = \"cuda\" (`bench/gpu_check.py`)\n\n" + "\n".join(lines) + "\n"
    print(body)
    write_section("gpu", body)


if __name__ == "__main__":
    main()
