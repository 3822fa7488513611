"""Voice tests run the real models (Whisper base, Piper joe, Silero, Smart Turn), loaded once per session
(the `runtime` fixture lives in tests/conftest.py, shared with the simulated-caller tests).

Caller audio is fed faster than real time wherever timing is not the point.
The LLM is left out (rules only) unless a test brings its own classifier.
"""
