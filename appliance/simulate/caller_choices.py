"""The simulated caller's voices and lines, by name (apart from the audio code, so that the command line can
list them without loading numpy): `caller_voices.py` speaks them, `line_conditions.py` carries them."""

VOICES = ("piper-joe", "espeak-en-us", "espeak-en-gb", "flite-slt", "flite-rms", "flite-awb")
DEFAULT_VOICE = "piper-joe"
LINES = ("clean", "g711", "noisy", "lossy")
DEFAULT_LINE = "g711"
