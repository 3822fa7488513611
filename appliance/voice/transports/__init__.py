"""Transports: where a call's audio comes from and goes to.

`line.py` is the in-memory line (tests, the offline demo, the spoken
simulator, the benchmark); `appliance demo --mic` uses Pipecat's own
LocalAudioTransport (see demo.py). A SIP transport goes beside
them on the same Pipecat base classes: an input that calls
`push_audio_frame(InputAudioRawFrame(...))` for every 20 ms frame it receives
(silence included: the line's clock is the call's clock) and an output whose
`write_audio_frame` sends a frame and paces itself to real time.
"""
