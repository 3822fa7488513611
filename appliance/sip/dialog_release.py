"""Ending a call whose 200 OK was never acknowledged, at once rather than a minute later.

RFC 3261 §15 has the callee wait for the ACK (or 32 s) before its BYE, and pjsip does: a call answered but
never ACKed keeps its pjsua call slot while pjsip resends the 200 for 32 s, then sends BYE and waits up to
32 s more. The pjsua2 wheel has four call slots in all (PJSUA_MAX_CALLS = 4, fixed when it was built), so a
few INVITEs from a forged address (which never see the 200, so never ACK) would shut the line for a minute.
pjsua2 has no call for this; pjsip's own C API does (`pjsip_inv_terminate`), and the wheel's extension
module exports it, as it exports pjlib's log setter (endpoint.quiet_pjlib). The dialog is looked up by value
(Call-ID and both tags) on the SIP thread, so no pointer is ever kept.

    release_dialog(call_id, local_tag, remote_tag)   # True when pjsip let the session go
    (the tags: sip_text.dialog_tag of the INVITE's From and of our 200's To)
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger("appliance.sip")

PJ_TRUE = 1
REQUEST_TIMEOUT = 408


class _PjStr(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_char_p), ("slen", ctypes.c_ssize_t)]


def _library():
    from pjsua2 import _pjsua2

    lib = ctypes.CDLL(_pjsua2.__file__)
    lib.pjsip_ua_find_dialog.restype = ctypes.c_void_p
    lib.pjsip_ua_find_dialog.argtypes = [ctypes.POINTER(_PjStr)] * 3 + [ctypes.c_int]
    lib.pjsip_dlg_get_inv_session.restype = ctypes.c_void_p
    lib.pjsip_dlg_get_inv_session.argtypes = [ctypes.c_void_p]
    lib.pjsip_inv_terminate.restype = ctypes.c_int
    lib.pjsip_inv_terminate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    lib.pjsip_dlg_dec_lock.restype = None
    lib.pjsip_dlg_dec_lock.argtypes = [ctypes.c_void_p]
    return lib


_LIB = None
_UNAVAILABLE = False


def release_dialog(call_id: str, local_tag: str, remote_tag: str) -> bool:
    """On the SIP thread: end the call's INVITE session now (pjsua frees its slot). False when the dialog is
    gone already or this pjsua2 build does not export pjsip's functions (then pjsip ends it in its own time)."""
    global _LIB, _UNAVAILABLE
    if _UNAVAILABLE or not (call_id and local_tag and remote_tag):
        return False
    if _LIB is None:
        try:
            _LIB = _library()
        except (ImportError, OSError, AttributeError) as exc:
            _UNAVAILABLE = True
            log.warning("cannot end unacknowledged calls early (%s): each keeps a call slot for up to a minute",
                        exc)
            return False
    texts = [value.encode() for value in (call_id, local_tag, remote_tag)]
    strings = [_PjStr(text, len(text)) for text in texts]
    dialog = _LIB.pjsip_ua_find_dialog(*(ctypes.byref(s) for s in strings), PJ_TRUE)
    if not dialog:
        return False
    try:
        session = _LIB.pjsip_dlg_get_inv_session(dialog)
        return bool(session) and _LIB.pjsip_inv_terminate(session, REQUEST_TIMEOUT, PJ_TRUE) == 0
    finally:
        _LIB.pjsip_dlg_dec_lock(dialog)
