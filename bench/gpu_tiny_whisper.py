"""A tiny randomly initialised Whisper in CTranslate2 format (one layer each side, width 64; 15 MB), for
`bench/gpu_check.py --model` on a machine the default model cannot be copied to: it exercises the GPU path
(cuBLAS, cuDNN, float16) but its words and timings mean nothing.

    python bench/gpu_tiny_whisper.py OUT_DIR WHISPER_DIR   # WHISPER_DIR: the installed model, for its vocabulary
"""
import shutil
import sys
from pathlib import Path
import numpy as np
from ctranslate2.specs import whisper_spec

out, vocab_dir = sys.argv[1], sys.argv[2]
Path(out).mkdir(parents=True, exist_ok=True)
d, heads, layers, vocab, mels = 64, 2, 1, 51865, 80
rng = np.random.default_rng(0)
r = lambda *shape: (rng.standard_normal(shape) * 0.02).astype(np.float16)
spec = whisper_spec.WhisperSpec(layers, heads, layers, heads)
e, dec = spec.encoder, spec.decoder
e.conv1.weight, e.conv1.bias = r(d, mels, 3), r(d)
e.conv2.weight, e.conv2.bias = r(d, d, 3), r(d)
e.position_encodings.encodings = r(1500, d)
def ln(x): x.gamma, x.beta = np.ones(d, np.float16), np.zeros(d, np.float16)
def lin(x, o, i): x.weight, x.bias = r(o, i), r(o)
ln(e.layer_norm)
for L in e.layer:
    ln(L.self_attention.layer_norm); lin(L.self_attention.linear[0], 3 * d, d); lin(L.self_attention.linear[1], d, d)
    ln(L.ffn.layer_norm); lin(L.ffn.linear_0, 4 * d, d); lin(L.ffn.linear_1, d, 4 * d)
dec.embeddings.weight = r(vocab, d)
dec.position_encodings.encodings = r(448, d)
ln(dec.layer_norm)
dec.projection.weight = dec.embeddings.weight
for L in dec.layer:
    ln(L.self_attention.layer_norm); lin(L.self_attention.linear[0], 3 * d, d); lin(L.self_attention.linear[1], d, d)
    ln(L.attention.layer_norm); lin(L.attention.linear[0], d, d); lin(L.attention.linear[1], 2 * d, d); lin(L.attention.linear[2], d, d)
    ln(L.ffn.layer_norm); lin(L.ffn.linear_0, 4 * d, d); lin(L.ffn.linear_1, d, 4 * d)
vocabulary = [line.rstrip("\n") for line in open(f"{vocab_dir}/vocabulary.txt", encoding="utf-8")]
spec.register_vocabulary(vocabulary)
spec.validate()
spec.save(out)
for name in ("config.json", "tokenizer.json"):
    shutil.copy(f"{vocab_dir}/{name}", out)
