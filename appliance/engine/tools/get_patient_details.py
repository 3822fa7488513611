"""GetPatientDetails: who the caller is. By caller ID it only counts the records on that number (narrows,
never unlocks); by name and date of birth it identifies. Its read-back ("am I speaking with ...?") puts a
likely patient to the caller by name when the name heard matched nobody."""

from __future__ import annotations

from datetime import date

from ...domain import PatientRecord, fold_name
from ..context import CallContext
from ..rule_env import RuleEnv
from .base import Tool, ToolEnv, ToolKind
from .birth_dates import sound_alike_dates
from .name_matching import (NAME_MATCH_THRESHOLD, given_name_score, heard_alike, name_score,
                            plainly_another_given_name, sound_candidate, surname_heard, surnames_heard,
                            whole_name_said)


class GetPatientDetails(Tool):
    name = "GetPatientDetails"
    kind = ToolKind.READ
    read_back = "identity"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        if ctx.dob is None or not ctx.last_name:
            return {"phone": ctx.caller_id}
        return {"first_name": ctx.first_name, "last_name": ctx.last_name, "dob": ctx.dob,
                "prefer": tuple(p.id for p in ctx.phone_candidates), "heard": tuple(ctx.name_words),
                "not_again": tuple(sorted(ctx.candidates_asked)), "surname_spelled": "last_name" in ctx.spelled}

    def pending(self, ctx: CallContext) -> tuple | None:
        if ctx.identity_candidate is not None:
            return ("identity", ctx.identity_candidate.id)
        return None

    def on_confirmed(self, token: tuple, ctx: CallContext) -> None:
        """"Am I speaking with ...?" - yes: that name is the caller's from now on (the name + date of birth
        lookup that follows still has to match it)."""
        candidate = ctx.identity_candidate
        if candidate is not None and candidate.id == token[1]:
            ctx.first_name, ctx.last_name = candidate.first_name, candidate.last_name
            ctx.identity_candidate = None

    def call(self, env: ToolEnv, *, phone: str | None = None, first_name: str | None = None,
             last_name: str | None = None, dob: date | None = None, prefer: tuple[str, ...] = (),
             heard: tuple[str, ...] = (), not_again: tuple[str, ...] = (), surname_spelled: bool = False) -> dict:
        store, ledger = env.store, env.ledger
        if dob is None or not last_name:
            # caller ID alone: how many records share it, never who the caller is
            candidates = store.patients_with_phone(phone) if phone else []
            return {"by": "phone", "matches": len(candidates), "patient_ids": [p.id for p in candidates]}
        born = store.patients_born_on(dob)
        scored = []
        for p in born:
            last_score = name_score(p.last_name, last_name)
            first_score = given_name_score(p.first_name, first_name) if first_name else 100
            if min(last_score, first_score) >= NAME_MATCH_THRESHOLD:
                scored.append((last_score + first_score + (5 if p.id in prefer else 0), p))
            elif p.id in prefer and first_name and heard_alike(f"{p.first_name} {p.last_name}",
                                                               f"{first_name} {last_name}"):
                scored.append((last_score + first_score, p))
            elif whole_name_said(p, heard):
                scored.append((last_score + first_score, p))
        if not scored:
            # The caller's own number, exactly this date of birth, and a surname that was heard or sounds
            # heard: three things that agree, where speech to text bends the first name. Only when one
            # patient fits.
            fits = surnames_heard([p for p in born if p.id in prefer], heard)
            if len(fits) == 1:
                scored.append((0, fits[0]))
        if not scored and first_name:
            # A year heard as its "-teen" / "-ty" twin ("2017" for "seventy"), or a day as its "-teenth" twin
            # ("8" for "eighteenth"): the record of that other date, only where both names were heard as on
            # file, not merely alike.
            scored.extend((0, p) for twin in sound_alike_dates(dob, env.now().date())
                          for p in store.patients_born_on(twin)
                          if min(name_score(p.last_name, last_name),
                                 given_name_score(p.first_name, first_name)) >= NAME_MATCH_THRESHOLD)
            if len(scored) > 1:
                scored = []   # two records fit: the date of birth is asked again
        if scored:
            scored.sort(key=lambda item: -item[0])
            patient = scored[0][1]
            ledger.identified_patient = patient.id
            return {"by": "name_dob", "status": "matched", "patient_id": patient.id}
        if store.patients_named(first_name, last_name):
            return {"by": "name_dob", "status": "dob_mismatch", "patient_id": None}
        # A year or day heard as its "-teen" twin, the names bent too: the one patient born on the twin day
        # whose surname was heard is a candidate, put to the caller (asking the date again hears the same year)
        twins = [p for twin in sound_alike_dates(dob, env.now().date()) for p in store.patients_born_on(twin)
                 if p.id not in not_again]
        twin_candidate = surname_heard(twins, (*heard, last_name))
        if twin_candidate is not None:
            return {"by": "name_dob", "status": "not_found", "patient_id": None, "candidate_id": twin_candidate.id}
        # (not one whose given name was plainly heard as another: someone else on a number a family shares)
        on_number = [p for p in (store.patient(pid) for pid in prefer) if p is not None and p.dob != dob
                     and not plainly_another_given_name(p.first_name, first_name)]
        if surnames_heard(on_number, (*heard, last_name)):
            # a patient on the caller's own number whose surname was heard, born on another day: the date of
            # birth is asked again, as for a name found (the first name is the part speech-to-text bends)
            return {"by": "name_dob", "status": "dob_mismatch", "patient_id": None}
        # Nobody by that name, but the date of birth is exactly one patient's and their surname was among the
        # words said for the name: speech-to-text bends first names far more than surnames. That patient is a
        # candidate, never identified here: the caller is asked "am I speaking with ...?" and only a yes leads
        # to a lookup by that name and date of birth.
        # Failing that, the one patient of that date of birth whose whole name sounds like the name taken.
        unasked = [p for p in born if p.id not in not_again]
        # Failing both, the one patient on the caller's own number born on exactly that day, whatever the name
        # was heard as: the number and the whole date agree, and only the caller's yes makes it theirs.
        on_number_that_day = [p for p in unasked if p.id in prefer]
        # The surname held counts as heard too: once spelled, it is the one part of the name speech-to-text
        # did not bend. A spelled surname with a letter or two heard wrong (a "space" written as letters, one
        # of two Ls lost) is still nearer the record than any spoken one: it counts as near as a name on file.
        spelled_near = [p for p in unasked if name_score(p.last_name, last_name) >= NAME_MATCH_THRESHOLD] \
            if surname_spelled else []
        candidate = surname_heard(unasked, (*heard, last_name)) \
            or (spelled_near[0] if len(spelled_near) == 1 else None) \
            or sound_candidate(unasked, (f"{first_name or ''} {last_name}", *heard)) \
            or (on_number_that_day[0] if len(on_number_that_day) == 1 else None)
        return {"by": "name_dob", "status": "not_found", "patient_id": None,
                "candidate_id": candidate.id if candidate else None}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        if raw["by"] == "phone":
            ctx.phone_candidates = tuple(p for p in (store.patient(pid) for pid in raw["patient_ids"]) if p)
            return
        ctx.identity_result = raw["status"]
        ctx.identity_candidate = None
        looked_up = (fold_name(ctx.first_name or ""), fold_name(ctx.last_name or ""))
        if raw["status"] == "not_found" and ctx.name_lookups and ctx.name_lookups[-1] == looked_up:
            ctx.same_name_lookups += 1
        ctx.name_lookups.append(looked_up)
        if raw["status"] == "matched":
            ctx.patient = store.patient(raw["patient_id"])
        elif raw["status"] == "dob_mismatch":
            ctx.dob_mismatches += 1
        else:
            ctx.not_found += 1
            if raw.get("candidate_id"):
                ctx.identity_candidate = store.patient(raw["candidate_id"])
                ctx.candidates_asked.add(raw["candidate_id"])


def patient_dict(p: PatientRecord) -> dict:
    return {"id": p.id, "first_name": p.first_name, "last_name": p.last_name, "dob": p.dob, "phone": p.phone}
