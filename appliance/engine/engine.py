"""The receptionist's brain: one call, one `Engine`.

The engine interprets the flow file. Each caller turn: understand the words,
take what they give, let emergencies pre-empt everything, answer side
questions, then follow the first edge of the current state whose rule holds,
running an action state's tools on the way, until a state that waits for the
caller (or ends the call). It has no I/O of its own: the clock, the store, the
id source and the record sink are given to it.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from datetime import datetime
from typing import Any, Callable

import phonenumbers

from ..clinic.regions import region_for
from ..store.clinic_store import ClinicStore
from ..understanding import ListenContext, Signal, Utterance, understand
from .absorb import absorb, derive
from .clock import Clock, random_ids
from .conditions import CONDITIONS, RuleEnv, intent_trigger
from .context import CallContext
from .expected_answers import expected_answers
from .flow import EDGE_EFFECTS, RETURN, Condition, Edge, Flow, State
from .preview import preview_reply
from .replies import Facts, render
from .read_backs import on_confirmed, pending_confirmation
from .tools import TOOLS, Ledger, ToolKind, ToolRunner
from .tools.runner import STORE_REFUSED
from .tools.get_currently_booked_appts import targets_from_hint
from .types import CUT_OFF, NO_RULE, CallInfo, ToolRun, Transition, Trigger, TurnResult

# the record of a call the phone line placed to the front desk (warm transfer, listen-in, take-over)
DESK_LEG = "DeskLeg"

log = logging.getLogger("appliance.engine")

# Given the text and the intents the current state may hear, name one (or None).
FallbackClassifier = Callable[[str, tuple[str, ...]], "Signal | None"]

_MAX_STEPS_PER_TURN = 60


class CallEnded(RuntimeError):
    """A turn was given to a call that has already ended."""


class Engine:
    def __init__(self, *, flow: Flow, store: ClinicStore, clock: Clock,
                 new_id: Callable[[str], str] = random_ids, recorder: Any = None,
                 classifier: FallbackClassifier | None = None, fallback: Any = None):
        """`fallback`: where a callback request goes when the database refuses it (a JournalingStore)."""
        self.flow = flow
        self.store = store
        self.clock = clock
        self.new_id = new_id
        self.recorder = recorder
        self.classifier = classifier
        self.fallback = fallback
        self.profile = store.profile()
        self.catalog = store.catalog()
        self.region = region_for(self.profile.region)
        self.env = RuleEnv(self.catalog, self.profile, flow.options, self.region)
        self.ctx: CallContext | None = None
        self.greeting: TurnResult | None = None
        self.ledger = Ledger()
        self.state: str = ""
        self.seq = -1
        self._side_origin: list[str] = []
        self._unsaved: list[tuple[str, dict]] = []
        self._caller_text = ""
        self._reset_turn()

    # ------------------------------------------------------------ public API

    @property
    def current(self) -> State:
        return self.flow.states[self.state]

    @property
    def ended(self) -> bool:
        return bool(self.ctx and self.ctx.ended)

    def start(self, call: CallInfo = CallInfo()) -> TurnResult:
        """Answer the call: look the caller ID up and give the greeting."""
        if self.ctx is not None:
            raise RuntimeError("this engine already has a call; make one Engine per call")
        call_id = call.call_id or self.new_id("call")
        self.ctx = CallContext(call_id=call_id, caller_id=self._normalise_caller_id(call.caller_id),
                               transfer_number=self.profile.transfer_number)
        self.runner = ToolRunner(store=self.store, ledger=self.ledger, call_id=call_id,
                                 now=self.clock.now, record=self._record_tool,
                                 commit=self._commit_write if self._records_with_store() else None,
                                 fallback=self.fallback)
        self._record("call_started", call_id=call_id, clinic=self.profile.name,
                     caller_id=call.caller_id or "", started_at=self.clock.now())
        self._flush()
        self._reset_turn()
        self.seq = 0
        trigger = Trigger("call_start", "high", "caller_id" if self.ctx.caller_id else "caller_id_withheld")
        self._guarded(lambda: self._enter(self.flow.start, trigger))
        self.greeting = self._finish_turn("", None)
        return self.greeting

    def turn(self, text: str, *, doubtful: tuple[str, ...] = ()) -> TurnResult:
        """One thing the caller said; returns what to say back and what happened. `doubtful`: words the ears
        were unsure they heard right (a new patient's surname said in them is spelled before it is stored)."""
        if self.ctx is None:
            raise RuntimeError("call start() before turn()")
        if self.ctx.ended:
            raise CallEnded(f"call {self.ctx.call_id} has ended")
        self._reset_turn()
        self.seq += 1
        text = (text or "").strip()
        self._caller_text = text
        self.ctx.doubtful_words = tuple(doubtful)
        trigger: list[Trigger | None] = [None]

        def handle() -> None:
            trigger[0] = self._handle_words(text)

        self._guarded(handle)
        return self._finish_turn(text, trigger[0])

    def preview(self, text: str, *, doubtful: tuple[str, ...] = ()) -> str | None:
        """The reply `text` would get now, worked out on a copy of the call that writes and records nothing; None
        where the turn would write or ask the language model (preview.py)."""
        return preview_reply(self, text, doubtful=doubtful)

    def hangup(self) -> str:
        """The caller hung up (or the call was cut): close the record; returns the outcome."""
        if self.ctx is None:
            raise RuntimeError("no call")
        if not self.ctx.ended:
            self.ctx.hung_up = True
            self.ctx.ended = True
            self._record_end()
        self._flush()
        return self._outcome()

    def transfer_failed(self) -> TurnResult:
        """The phone line could not complete the transfer: fall back to a call back."""
        if self.ctx is None or not self.ctx.transferred:
            raise RuntimeError("no transfer to fail")
        self._reset_turn()
        self.seq += 1
        ctx = self.ctx
        ctx.transferred = False
        ctx.transfer_failed = True
        ctx.ended = False
        ctx.end_action = None
        target = self.current.on_failure or self.flow.options.get("on_error")
        ctx.callback_reason = "transfer_failed"
        self._guarded(lambda: self._enter(target, Trigger("transfer_failed", "high", "phone_line")))
        return self._finish_turn("", None)

    def desk_leg(self, *, purpose: str, desk: str, connected: bool, answer: str, waited_s: float,
                 brief: str | None = None, by: str | None = None) -> None:
        """The phone line called the front desk (`purpose`: warm_transfer, listen_in, take_over) from `desk` and
        it `answer`ed ("answered", "no answer", "rejected 486", ...) after `waited_s`: recorded with the call as a
        `DeskLeg` entry among its tool calls. A warm transfer nobody took leaves the brief as the message of the
        callback the flow then takes (`desk_unanswered`)."""
        if self.ctx is None:
            raise RuntimeError("no call")
        arguments = {"purpose": purpose, "desk": desk, "by": by}
        result = {"connected": connected, "answer": answer, "waited_s": round(waited_s, 1), "brief": brief}
        self._record("tool_call", call_id=self.ctx.call_id, turn_seq=self.seq, state=self.state, name=DESK_LEG,
                     arguments=arguments, result_kind="ok", result=result, duration_ms=round(waited_s * 1000, 1),
                     at=self.clock.now())
        if purpose == "warm_transfer" and not connected:
            self.ctx.desk_unanswered = True
            self.ctx.callback_message = brief
        self._flush()

    def staff_took_call(self, by: str | None = None, *, taken_over: bool = False) -> str:
        """Front-desk staff (OS user `by`) took the call from the monitor: `transferred_by_staff` (handed to the
        desk), or `taken_over` (a person joined the call on the desk's phone); the call ends for the
        receptionist. Returns the outcome."""
        if self.ctx is None:
            raise RuntimeError("no call")
        if not self.ctx.ended:
            self._reset_turn()
            self.seq += 1
            self.ctx.transferred = True
            self.ctx.cut = (("taken_over", "a person at the front desk took the call over", by) if taken_over
                            else ("transferred_by_staff", "front desk took the call", by))
            self.ctx.ended = True
            self.ctx.end_action = "transfer"
            self._record_end()
            self._finish_turn("", Trigger("staff", "high", "front_desk_took_call"))
        return self._outcome()

    def cut(self, outcome: str, reason: str, *, by: str | None = None) -> str:
        """Something outside the conversation ended the call (`types.CUT_OUTCOMES`: staff, a shutdown, the
        store or the engine failing): the record closes with that outcome, why, and who (staff). A caller the
        service cut off (`CUT_OFF`) gets a callback request when their number is known. Returns the outcome."""
        if self.ctx is None:
            raise RuntimeError("no call")
        if not self.ctx.ended:
            self.ctx.cut = (outcome, reason, by)
            self.ctx.ended = True
            self.ctx.hung_up = True
            self.ctx.end_action = self.ctx.end_action or "hangup"
            if outcome in CUT_OFF:
                self._guarded(lambda: self._callback_for_cut_off(reason))
            self._record_end()
        self._flush()
        return self._outcome()

    def _callback_for_cut_off(self, reason: str) -> None:
        ctx = self.ctx
        tool = TOOLS["CreateCallbackRequest"]
        args = tool.arguments(ctx, self.env)
        if ctx.callback_created or not args.get("phone"):
            return
        args.update(reason="cut_off", message=reason)
        run, raw = self.runner.run(tool.name, args, state=self.state, state_tools=(tool.name,))
        tool.apply(raw, ctx, self.store)

    def check_in(self, attempt: int) -> TurnResult:
        """The caller has gone quiet: ask if they are still there (attempt 1, 2, ...), staying where we are."""
        if self.ctx is None or self.ctx.ended:
            raise CallEnded("no live call to check in on")
        self._reset_turn()
        self.seq += 1
        self._say("silence_check_in", max(0, attempt - 1))
        state = self.current
        self._say_state(state, reask=True)
        return self._finish_turn("", Trigger("silence", "high", f"check_in_{attempt}"))

    def silence_goodbye(self) -> TurnResult:
        """Nobody answered the check-ins: say goodbye and end; the outcome keeps what already happened."""
        if self.ctx is None or self.ctx.ended:
            raise CallEnded("no live call to end")
        self._reset_turn()
        self.seq += 1
        self._say("silence_goodbye")
        self.ctx.hung_up = True     # the caller left us, as far as the outcome is concerned
        self.ctx.ended = True
        self.ctx.end_action = "hangup"
        self._record_end()
        return self._finish_turn("", Trigger("silence", "high", "no_answer"))

    def outcome(self) -> str | None:
        return self._outcome() if self.ended else None

    # ------------------------------------------------------------ one caller turn

    def _handle_words(self, text: str) -> Trigger | None:
        ctx = self.ctx
        state = self.current
        utt = self._understand(text, state)
        ctx.caller_turns += 1
        trigger = self._route_words(utt, state)
        if trigger is None and self.classifier is not None and text:
            trigger = self._ask_classifier(text, utt, state)
        if trigger is None:
            self._miss(state)
            return NO_RULE
        ctx.understood_turns += 1
        return trigger

    def _route_words(self, utt: Utterance, state: State) -> Trigger | None:
        ctx = self.ctx
        ctx.utt = utt
        ctx.given = set()
        ctx.side_trips_this_turn = 0
        absorb(ctx, utt, self.flow.questions[state.waiting_for])
        derive(ctx, self.env, self.clock.now().date())
        first: Trigger | None = None
        side_trips = 0
        trips: list[str] = []
        for edge in self.flow.global_edges:
            if edge.id in state.ignore_globals or edge.to == state.name:
                continue
            hit = self._check(edge.when)
            if hit is None:
                continue
            if edge.side_trip:
                self._side_trip(edge, hit)
                side_trips += 1
                trips.append(edge.id)
                first = first or hit
                continue
            self._take(edge, hit, state)
            return first or hit
        for edge in state.edges:
            hit = self._check(edge.when)
            if hit is not None:
                hit = self._explain(hit, utt, state)
                self._take(edge, hit, state)
                return first or hit
        if side_trips:
            # the same question answered again and again while the state's own goes unanswered: no endless loop
            asked = (state.name, tuple(sorted(trips)))
            ctx.same_side_trips = ctx.same_side_trips + 1 if ctx.last_side_trip == asked else 1
            ctx.last_side_trip = asked
            if state.waits and not state.after_side_trip \
                    and ctx.same_side_trips > int(self.flow.options.get("max_side_trips", 3)):
                self._miss(state)
                return first
            if state.after_side_trip:
                self._enter(state.after_side_trip, first)
            else:
                self._say_state(state, reask=True)
            return first
        return None

    def _explain(self, trigger: Trigger, utt: Utterance, state: State) -> Trigger:
        """Name the caller's words, not the bookkeeping, as the reason for a route."""
        if trigger.evidence != "context":
            return trigger
        ctx = self.ctx
        if "task" in ctx.given and ctx.task:
            return intent_trigger(ctx, ctx.task) or trigger
        if "answered" in ctx.given and state.waits:
            return Trigger(state.waiting_for, "high", f"{state.waiting_for}_prompt")
        if ctx.given:
            return Trigger("details", "medium", ",".join(sorted(ctx.given - {"answered"})) + "_terms")
        return trigger

    def _ask_classifier(self, text: str, utt: Utterance, state: State) -> Trigger | None:
        # only the intents this state listens for: emergencies, crises, goodbyes and asking for a person are
        # caught by rules in every state, and a small model's guess at them derailed real calls (a surname
        # misheard as "and got it" taken for goodbye; "and Doctors visit." taken for a crisis)
        allowed = state.listens_for
        started = time.perf_counter()
        try:
            signal = self.classifier(text, allowed)
        except Exception as exc:  # a failing model never stops the call
            log.warning("call %s: fallback classifier failed: %s", self.ctx.call_id, type(exc).__name__)
            return None
        finally:
            self.llm_ms = (time.perf_counter() - started) * 1000
        if signal is None or signal.name not in allowed:
            return None
        labelled = Signal(signal.name, signal.confidence, "llm")
        hit = self._route_words(dataclasses.replace(utt, intents=(labelled,) + tuple(utt.intents)), state)
        if hit is None:
            return None
        return Trigger("llm", signal.confidence, f"llm_intent:{signal.name}")

    def _miss(self, state: State) -> None:
        ctx = self.ctx
        misses = ctx.misses.get(state.name, 0) + 1
        ctx.misses[state.name] = misses
        limit = int(self.flow.options.get("max_misses", 2))
        if misses > limit or not state.waits:
            ctx.skipped.update(self.flow.questions[state.waiting_for].expects)
            target = state.on_stuck or self.flow.options.get("on_stuck")
            if ctx.callback_reason is None:
                ctx.callback_reason = "unclear"
            self._enter(target, Trigger("unknown", "low", "no_rule_matched,repeated"))
            return
        self._say_state(state, variant=misses)

    # ------------------------------------------------------------ moving between states

    def _check(self, condition: Condition) -> Trigger | None:
        """None when the condition fails; else the trigger that best explains it."""
        best: Trigger | None = None
        for name in condition.names:
            value = CONDITIONS[name](self.ctx, self.env)
            holds = bool(value)
            if name in condition.negated:
                holds = not holds
                value = None
            if not holds:
                return None
            if isinstance(value, Trigger) and best is None:
                best = value
        if best is not None:
            return best
        label = str(condition).replace(" and ", ",").replace("not ", "not_")
        return Trigger(label, "high", "context")

    def _take(self, edge: Edge, trigger: Trigger, source: State) -> None:
        ctx = self.ctx
        for item in edge.clear:
            if item == "task":   # the caller never meant the task: who they are stays, the rest goes
                ctx.reset_task_details()
            for attr in EDGE_EFFECTS[item]:
                setattr(ctx, attr, None)
        if edge.reason:
            ctx.callback_reason = edge.reason
            if edge.reason in ("medical_advice", "non_service") and ctx.utt is not None:
                ctx.callback_message = ctx.callback_message or ctx.utt.text
        if source.confirms and "said_yes" in edge.when.names and "said_yes" not in edge.when.negated:
            if self.ctx.pending is not None:
                self.ledger.confirm(self.ctx.pending)
                on_confirmed(self.ctx.pending, self.ctx)
        if edge.say:
            self._say(edge.say)
        if edge.to == RETURN:
            self._return_from_side_trip()
        else:
            self._enter(edge.to, trigger)

    def _enter(self, name: str, trigger: Trigger | None) -> None:
        self._steps += 1
        if self._steps > _MAX_STEPS_PER_TURN:
            raise RuntimeError(f"flow loop: more than {_MAX_STEPS_PER_TURN} steps in one turn (at {name})")
        previous = self.state
        self._transition(previous, name, trigger)
        self.state = self.ctx.state = name
        state = self.flow.states[name]
        # tool results may have settled something (e.g. the booking to move)
        derive(self.ctx, self.env, self.clock.now().date())
        if previous != name:
            self.ctx.misses[name] = 0
        if state.waits:
            self.ctx.asked.add(state.waiting_for)
        if state.kind == "decision":
            self._say_state(state)
            if not state.waits:
                self._follow(state)
            return
        failed = self._run_tools(state)
        if failed is not None and state.on_failure:
            self._enter(state.on_failure, Trigger("tool_failed", "high", failed.name))
            return
        self._say_state(state)
        if state.kind == "terminal":
            self.ctx.ended = True
            self.ctx.end_action = self.ctx.end_action or "hangup"
            self._record_end()
            return
        self._follow(state)

    def _follow(self, state: State) -> None:
        for edge in state.edges:
            hit = self._check(edge.when)
            if hit is not None:
                self._take(edge, hit, state)
                return
        raise RuntimeError(f"state {state.name!r} has no edge for this call")

    def _side_trip(self, edge: Edge, trigger: Trigger) -> None:
        self.ctx.side_trips_this_turn += 1
        self._side_origin.append(self.state)
        self._enter(edge.to, trigger)

    def _return_from_side_trip(self) -> None:
        origin = self._side_origin.pop()
        self._transition(self.state, origin, Trigger("side_trip_return", "high", "answered"))
        self.state = origin

    def _run_tools(self, state: State) -> ToolRun | None:
        for step in state.run:
            if self._check(step.when) is None:
                continue
            tool = TOOLS[step.tool]
            args = tool.arguments(self.ctx, self.env)
            if tool.kind is ToolKind.WRITE:
                self._flush()  # the record shows how we got here before the clinic's data changes
            run, raw = self.runner.run(step.tool, args, state=state.name, state_tools=state.tools)
            if run.result.get("code") == STORE_REFUSED:
                self.ctx.store_refused = True
            self._tools.append(run)
            self.ctx.last_tool = run
            tool.apply(raw, self.ctx, self.store)
            if run.name == "GetCurrentlyBookedAppts" and run.ok:
                self._pick_booking_from_earlier_words()
            if not run.ok:
                return run
        return None

    def _pick_booking_from_earlier_words(self) -> None:
        """"Move my appointment tomorrow" was said before we knew the bookings: read it again now."""
        ctx = self.ctx
        if ctx.target_ids or not ctx.bookings:
            return
        for text in reversed(ctx.booking_hint_texts):
            # heard as the opening it was, so only explicit references ("the one on Friday") pick
            utt = self._understand(text, self.current, waiting_for=self.flow.opening_question)
            picks = tuple(ctx.bookings[i].id for i in utt.booking_picks if 0 <= i < len(ctx.bookings))
            if picks and (len(picks) == 1 or ctx.task == "cancel_all"):
                ctx.target_ids = picks
                return
        ctx.target_ids = targets_from_hint(ctx)

    # ------------------------------------------------------------ speaking

    def _say_state(self, state: State, *, variant: int = 0, reask: bool = False) -> None:
        template = None
        if reask and state.reask:
            template = state.reask
        elif variant and state.reprompt:
            template = state.reprompt[min(variant - 1, len(state.reprompt) - 1)]
            variant = 0
        else:
            for choice in state.say:
                if self._check(choice.when) is not None:
                    template = choice.template
                    break
        if template is None:
            return
        self._say(template, variant)
        if state.waits:
            self.ctx.pending_kind = state.confirms
            self.ctx.pending = pending_confirmation(state.confirms, self.ctx) if state.confirms else None

    def _say(self, template: str, variant: int = 0) -> None:
        texts = self.flow.templates[template]
        text = render(texts[min(variant, len(texts) - 1)], Facts(self.ctx, self.env, self.clock.now()))
        if text:
            self._parts.append(_one_apology(self._parts, text))

    # ------------------------------------------------------------ understanding

    def _understand(self, text: str, state: State, *, waiting_for: str | None = None) -> Utterance:
        context = ListenContext(
            question=self.flow.questions[waiting_for or state.waiting_for], now=self.clock.now(),
            catalog=self.catalog, region=self.region, offered_slots=self.ctx.offered,
            bookings=self.ctx.bookings or (),
        )
        try:
            return understand(text, context)
        except Exception as exc:  # garbage in must not stop the call
            log.warning("call %s: understanding failed: %s", self.ctx.call_id, type(exc).__name__)
            return Utterance(text=text, intents=())

    def understand_answer(self, text: str) -> Utterance:
        """What `text` would say to the question now waited for, changing nothing (the ears ask it to tell
        words understood from a miss before scoring the expected answers against the audio)."""
        return self._understand(text, self.current)

    def _normalise_caller_id(self, caller_id: str) -> str:
        if not caller_id:
            return ""
        try:
            parsed = phonenumbers.parse(caller_id, self.region.phone_region)
            if phonenumbers.is_possible_number(parsed):
                return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
        except phonenumbers.NumberParseException:
            pass
        return caller_id

    # ------------------------------------------------------------ outcome

    def _outcome(self) -> str:
        ctx = self.ctx
        if ctx.cut is not None:
            return ctx.cut[0]
        final = self.flow.states.get(self.state)
        if final is not None and final.outcome and ctx.ended and not ctx.hung_up:
            return final.outcome
        if ctx.store_refused and not ctx.writes:
            return "failed_store"
        if ctx.transferred:
            return "transferred"
        for word in ("rescheduled", "booked", "cancelled"):
            if word in ctx.writes:
                return word
        if ctx.callback_created:
            return "callback"
        if ctx.hung_up and ctx.understood_turns == 0:
            return "abandoned"
        return "info"

    # ------------------------------------------------------------ turn bookkeeping and records

    def _reset_turn(self) -> None:
        self._parts: list[str] = []
        self._tools: list[ToolRun] = []
        self._transitions: list[Transition] = []
        self._steps = 0
        self.llm_ms: float | None = None
        self.record_ms = 0.0   # time spent writing the call record this turn (I/O, not deciding)
        self._turn_started = time.perf_counter()

    def _guarded(self, work: Callable[[], None]) -> None:
        """Run a turn's work; if anything breaks, fall back to a call back, never silence."""
        try:
            work()
        except Exception as exc:
            log.exception("call %s: engine error in state %s: %s", self.ctx.call_id, self.state, type(exc).__name__)
            self._parts = ["I'm sorry, something went wrong on my side."]
            self.ctx.callback_reason = "system_error"
            target = self.flow.options.get("on_error")
            try:
                if not target or self.ctx.ended:
                    raise RuntimeError("no on_error route")
                self._steps = 0
                self._enter(target, Trigger("engine_error", "high", type(exc).__name__))
            except Exception:
                log.exception("call %s: fallback failed too", self.ctx.call_id)
                self._parts.append(f"Please call {self.profile.name} again on {self.profile.phone}. Goodbye.")
                self.ctx.ended = True
                self.ctx.end_action = "hangup"
                self._record_end(outcome="failed")

    def _finish_turn(self, caller_text: str, trigger: Trigger | None) -> TurnResult:
        ctx = self.ctx
        reply = " ".join(self._parts).strip() or "Sorry, could you say that again?"
        state = self.current
        waiting_for = "none" if ctx.ended else state.waiting_for
        engine_ms = (time.perf_counter() - self._turn_started) * 1000
        self._record("turn", call_id=ctx.call_id, seq=self.seq, caller_text=caller_text, agent_text=reply,
                     state=self.state, waiting_for=waiting_for,
                     trigger=trigger.as_tuple() if trigger else None, at=self.clock.now())
        timings = {"engine_ms": round(engine_ms, 3)}
        if self.llm_ms is not None:
            timings["llm_ms"] = round(self.llm_ms, 1)
        self._record("turn_timing", call_id=ctx.call_id, seq=self.seq, **timings)
        self._flush()  # the turn is on disk before the caller hears the reply
        return TurnResult(
            reply=reply, state=self.state, waiting_for=self.flow.questions[waiting_for].reported,
            question=self.flow.questions[waiting_for],
            expected=() if ctx.ended else expected_answers(self.flow.questions[waiting_for], ctx, self.env),
            tools=list(self._tools), transitions=list(self._transitions), trigger=trigger, ended=ctx.ended,
            outcome=self._outcome() if ctx.ended else None,
            end_action=ctx.end_action if ctx.ended else None,
            transfer_to=ctx.transfer_number if ctx.ended and ctx.end_action == "transfer" else None,
            seq=self.seq, confirms=None if ctx.ended else state.confirms,
        )

    def _transition(self, from_state: str, to_state: str, trigger: Trigger | None) -> None:
        self._transitions.append(Transition(from_state, to_state, trigger))
        self._record("transition", call_id=self.ctx.call_id, turn_seq=self.seq, from_state=from_state or None,
                     to_state=to_state, trigger=trigger.as_tuple() if trigger else None, at=self.clock.now())

    def _record_tool(self, run: ToolRun) -> None:
        name, fields = self._tool_entry(run)
        self._record(name, **fields)

    def _tool_entry(self, run: ToolRun) -> tuple[str, dict]:
        return ("tool_call", {"call_id": self.ctx.call_id, "turn_seq": self.seq, "state": run.state, "name": run.name,
                              "arguments": run.arguments, "result_kind": run.kind, "result": run.result,
                              "duration_ms": round(run.duration_ms, 3), "at": self.clock.now()})

    def _record_end(self, outcome: str | None = None) -> None:
        _, reason, by = self.ctx.cut or (None, None, None)
        self._record("call_ended", call_id=self.ctx.call_id, ended_at=self.clock.now(),
                     outcome=outcome or self._outcome(), final_state=self.state,
                     end_action=self.ctx.end_action, reason=reason, ended_by=by)

    def _records_with_store(self) -> bool:
        """Whether the recorder writes on the store's own connection, so a write and its record can be one
        transaction (`commit_with`)."""
        db = getattr(self.recorder, "db", None)
        return (self.recorder is not None and hasattr(self.recorder, "commit_with")
                and getattr(db, "conn", None) is self.store.db.conn)

    def _commit_write(self, work: Callable[[], tuple[ToolRun, Any]]) -> tuple[ToolRun, Any]:
        """A store write, its tool call, the turn's record so far and the turn itself (provisional: the reply
        is not known yet) in one transaction: a crash never leaves a booking without them."""
        queued = list(self._unsaved)

        def entries(done: tuple[ToolRun, Any]) -> list[tuple[str, dict]]:
            run = done[0]
            turn = {"call_id": self.ctx.call_id, "seq": self.seq, "caller_text": self._caller_text, "agent_text": None,
                    "state": self.state, "waiting_for": None, "trigger": None, "at": self.clock.now()}
            return queued + [self._tool_entry(run), ("turn", turn)]

        done = self.recorder.commit_with(work, entries)
        del self._unsaved[:len(queued)]
        return done

    def _record(self, method: str, **fields: Any) -> None:
        """Queue a call-record entry; `_flush` writes the queue in one transaction."""
        if self.recorder is not None:
            self._unsaved.append((method, fields))

    def _flush(self) -> None:
        """Commit the queued record entries; if the disk refuses, keep them and retry next time."""
        if self.recorder is None or not self._unsaved:
            return
        started = time.perf_counter()
        try:
            batch = getattr(self.recorder, "write_batch", None)
            if batch is not None:
                batch(list(self._unsaved))
                self._unsaved.clear()
                return
            while self._unsaved:
                name, kwargs = self._unsaved[0]
                getattr(self.recorder, name)(**kwargs)
                self._unsaved.pop(0)
        except Exception as exc:
            log.error("call %s: call record not written yet (%s); will retry", self.ctx.call_id if self.ctx else "-",
                      type(exc).__name__)
        finally:
            self.record_ms += (time.perf_counter() - started) * 1000

    @property
    def unsaved_records(self) -> int:
        return len(self._unsaved)


def now_iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


_APOLOGY = re.compile(r"^(?:I'm sorry|Sorry), (\w)")


def _one_apology(said: list[str], text: str) -> str:
    """One "I'm sorry" a reply: a part that would apologise again after an earlier part did drops it ("I'm sorry,
    that time has just been taken. There's nothing available this afternoon.")."""
    if not any(_APOLOGY.match(part) for part in said):
        return text
    return _APOLOGY.sub(lambda m: m.group(1).upper(), text, count=1)
