"""device = "cuda" on a box where Whisper cannot compute on a GPU: calls still hear, on the CPU, and say why."""

import numpy as np
import pytest

from appliance.voice import cuda_libraries
from appliance.voice.stt import load_transcriber


def test_the_libraries_ctranslate2_opens_by_name_are_reported_when_missing():
    # this box has no CUDA; NVIDIA's PyPI packages are not installed for the CPU default
    assert cuda_libraries.preload() == list(cuda_libraries.NEEDED)


def test_nvidia_package_folders_are_found_under_the_namespace(tmp_path, monkeypatch):
    (tmp_path / "nvidia" / "cublas" / "lib").mkdir(parents=True)
    (tmp_path / "nvidia" / "cudnn" / "lib").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    folders = cuda_libraries.package_folders()
    assert {f.relative_to(tmp_path).as_posix() for f in folders} == {"nvidia/cublas/lib", "nvidia/cudnn/lib"}


@pytest.fixture(scope="module")
def whisper_dir():
    from appliance.models import resolve
    from appliance.settings import load_settings

    try:
        return resolve("stt", load_settings()).path
    except Exception as exc:
        pytest.skip(f"Whisper is not installed: {exc}")


def test_whisper_on_an_unusable_gpu_falls_back_to_the_cpu_with_the_reason(whisper_dir):
    transcriber, problem = load_transcriber(whisper_dir, device="cuda", compute_type="float16", beam_size=1,
                                            cpu_threads=1, workers=1)
    assert problem and "libcublas.so.12" in problem and "appliance[cuda]" in problem
    assert transcriber.model.model.device == "cpu"
    assert transcriber.transcribe(np.zeros(16000, np.int16).tobytes(), 16000).text == ""   # it runs: silence is no words


def test_whisper_on_the_cpu_reports_no_problem(whisper_dir):
    transcriber, problem = load_transcriber(whisper_dir, device="cpu", compute_type="int8", cpu_threads=1, workers=1)
    assert problem is None and transcriber.model.model.device == "cpu"
