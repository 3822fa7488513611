"""Review flags: what in a call a person should look at, each with its reason.

Read from the record only:

- `reprompts`: the caller was not understood REPROMPTS_AT times or more (turns no rule matched);
- `silence`: the receptionist checked in on a silence (or said goodbye to one);
- `asked_for_human`: the caller asked for a person;
- `correction`: the name or date of birth the call used changed during the call (a correction, or a name said
  again after a lookup found nobody), or the name used is not the one first heard;
- `guard_refusal`: a tool's guard refused it (a write without its confirmation, lookup or identity);
- `tool_failed`: a tool failed in the clinic system or otherwise (a slot taken meanwhile, a timeout);
- `long_wait`: the caller waited LONG_WAIT_MS or more for a reply (holding lines, a slow turn);
- `barge_in`: the caller started speaking at least BARGE_IN_OVERLAP_MS before the receptionist's reply had
  finished playing (the voice layer's moments; text calls have none).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from .call_record import ReviewedCall
from .turn_wait import moment as _moment, turn_latency_ms

FLAG_KINDS = ("reprompts", "silence", "asked_for_human", "correction", "guard_refusal", "tool_failed", "long_wait",
              "barge_in")
FLAG_LABELS = {"reprompts": "reprompts", "silence": "silence", "asked_for_human": "asked for a person",
               "correction": "name/DOB changed", "guard_refusal": "guard refused", "tool_failed": "tool failed",
               "long_wait": "long wait", "barge_in": "barge-in"}

REPROMPTS_AT = 2
LONG_WAIT_MS = 3000.0
BARGE_IN_OVERLAP_MS = 300.0

@dataclass(frozen=True)
class ReviewFlag:
    kind: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


def _turns_at(seqs: list[int]) -> str:
    return ("turn " if len(seqs) == 1 else "turns ") + ", ".join(str(s) for s in seqs)


def _reprompts(call: ReviewedCall) -> list[ReviewFlag]:
    missed = [t for t in call.turns if t["seq"] > 0 and t.get("trigger_route") == "unknown"]
    if len(missed) < REPROMPTS_AT:
        return []
    states = sorted({t.get("state") or "?" for t in missed})
    return [ReviewFlag("reprompts", f"not understood {len(missed)} times ({_turns_at([t['seq'] for t in missed])}; "
                                    f"at {', '.join(states)})")]


def _silence(call: ReviewedCall) -> list[ReviewFlag]:
    silent = [t for t in call.turns if t.get("trigger_route") == "silence"]
    if not silent:
        return []
    check_ins = [t for t in silent if (t.get("trigger_evidence") or "").startswith("check_in")]
    reason = f"checked in on a silence {len(check_ins)} time{'s' if len(check_ins) != 1 else ''}"
    if any(t.get("trigger_evidence") == "no_answer" for t in silent):
        reason += "; ended the call when nobody answered"
    return [ReviewFlag("silence", reason + f" ({_turns_at([t['seq'] for t in silent])})")]


def _asked_for_human(call: ReviewedCall) -> list[ReviewFlag]:
    asked = [t["seq"] for t in call.turns if t.get("trigger_route") == "human_request"
             or (t.get("trigger_route") == "llm" and t.get("trigger_evidence") == "llm_intent:human")]
    if not asked:
        return []
    return [ReviewFlag("asked_for_human", f"the caller asked for a person ({_turns_at(asked)})")]


def _fold(text: Any) -> str:
    decomposed = unicodedata.normalize("NFKD", str(text or ""))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().strip()


def _words(text: Any) -> list[str]:
    return ["".join(ch for ch in word if ch.isalnum()) for word in _fold(text).replace("-", " ").split()]


def _spelled(text: Any) -> bool:
    words = [w for w in _words(text) if w]
    return bool(words) and sum(len(w) == 1 for w in words) * 2 > len(words)


def _correction(call: ReviewedCall) -> list[ReviewFlag]:
    names: list[tuple[int, str]] = []      # (turn, name) as each identity tool used it
    dobs: list[tuple[int, str]] = []
    heard: list[str] = []
    for tool in call.tool_calls:
        if tool["name"] not in ("GetPatientDetails", "CreatePatient"):
            continue
        args = tool["arguments"]
        if args.get("last_name"):
            names.append((tool["turn_seq"], " ".join(str(p) for p in (args.get("first_name"), args["last_name"]) if p)))
        if args.get("dob"):
            dobs.append((tool["turn_seq"], str(args["dob"])))
        heard.extend(str(h) for h in args.get("heard") or () if h not in heard)
    flags: list[ReviewFlag] = []
    changed = [names[i] for i in range(1, len(names)) if _fold(names[i][1]) != _fold(names[i - 1][1])]
    if changed:
        steps = " → ".join(dict.fromkeys([names[0][1]] + [name for _, name in changed]))
        flags.append(ReviewFlag("correction", f"the name changed during the call: {steps} "
                                              f"({_turns_at(sorted({seq for seq, _ in changed}))})"))
    elif names:
        used = set(_words(names[-1][1]))
        unlike = [h for h in heard if not _spelled(h) and not used <= set(_words(h))]
        if unlike:
            flags.append(ReviewFlag("correction", f"the name used, {names[-1][1]}, is not the one first heard "
                                                  f"(“{unlike[0]}”)"))
    dob_changed = [dobs[i] for i in range(1, len(dobs)) if dobs[i][1] != dobs[i - 1][1]]
    if dob_changed:
        steps = " → ".join(dict.fromkeys([dobs[0][1]] + [dob for _, dob in dob_changed]))
        flags.append(ReviewFlag("correction", f"the date of birth changed during the call: {steps} "
                                              f"({_turns_at(sorted({seq for seq, _ in dob_changed}))})"))
    return flags


def _tools(call: ReviewedCall, kinds: tuple[str, ...], flag: str, how: str) -> list[ReviewFlag]:
    found = []
    for tool in call.tool_calls:
        if tool["result_kind"] in kinds:
            error = tool["result"].get("error") or tool["result"].get("code") or tool["result_kind"]
            found.append(ReviewFlag(flag, f"{tool['name']} {how} at turn {tool['turn_seq']}: {error}"))
    return found


def _long_wait(call: ReviewedCall) -> list[ReviewFlag]:
    slow = [(t["seq"], w) for t in call.turns if t["seq"] > 0 and (w := turn_latency_ms(t)) is not None and w >= LONG_WAIT_MS]
    if not slow:
        return []
    seq, longest = max(slow, key=lambda item: item[1])
    return [ReviewFlag("long_wait", f"waited {longest / 1000:.1f} s for a reply at turn {seq}"
                                    + (f" ({len(slow)} turns over {LONG_WAIT_MS / 1000:.0f} s)" if len(slow) > 1 else ""))]


def _barge_in(call: ReviewedCall) -> list[ReviewFlag]:
    over = []
    for before, turn in zip(call.turns, call.turns[1:]):
        started, reply_end = _moment(turn.get("speech_start")), _moment(before.get("agent_speech_end"))
        if started is None or reply_end is None:
            continue
        if (reply_end - started).total_seconds() * 1000 >= BARGE_IN_OVERLAP_MS:
            over.append(turn["seq"])
    if not over:
        return []
    return [ReviewFlag("barge_in", f"the caller spoke over the receptionist {len(over)} "
                                   f"time{'s' if len(over) != 1 else ''} ({_turns_at(over)})")]


def review_flags(call: ReviewedCall) -> list[ReviewFlag]:
    """The call's flags, in FLAG_KINDS order; none for a call with nothing to look at."""
    return (_reprompts(call) + _silence(call) + _asked_for_human(call) + _correction(call)
            + _tools(call, ("guard",), "guard_refusal", "refused by its guard")
            + _tools(call, ("pms", "other"), "tool_failed", "failed")
            + _long_wait(call) + _barge_in(call))
