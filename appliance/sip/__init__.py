"""The phone line: a pjsua2 SIP service that answers calls and runs the voice pipeline per call.

Nothing outside this folder imports pjsua2, and nothing here imports it at
module import time: `appliance run` loads it when the service starts.
See service.py for how the pieces fit.
"""
