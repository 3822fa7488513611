"""What the caller wants done: book, move, cancel, ask about an appointment,
price, hours, address, a service; or to reach a person; or something the
receptionist does not handle (medical advice, suppliers, invoices, jobs).

Rules read the normalised words (contractions expanded, so "don't" is
"do not"). A phrase with "not"/"never"/"instead of" just before it in the
same clause does not count ("I don't want to cancel").
"""

from __future__ import annotations

from .signals import RuleSet, rule

_APPT = r"(?:appointment|appointments|booking|bookings|session|sessions|visit|consult|consultation)"
# whose or which appointment: "my", "the", "mum's", "Tuesday 's" ("Tuesday's", as normalised)
_MY = r"(?:my|our|his|her|their|the|this|that|mum's|mom's|dad's|\w+ 's)"
_MEDS = (r"(?:ibuprofen|paracetamol|panadol|nurofen|voltaren|aspirin|codeine|antibiotics?|painkillers?|"
         r"pain killers?|anti inflammator\w*|medication|medicine|tablets?|pills?|capsules?)")

BOOK = (
    rule("book", "high",
         # "could I get booked in?", "can you get me booked in", "I'd like to be booked in" (not "I'm booked in")
         r"\b(?:can|could|would|will|to|please) (?:i |you |we )?(?:get|be) (?:me |him |her |us |them |my \w+ )?"
         r"booked in\b",
         r"\bbook(?<!re book)(?:ing)? (?:me|us|him|her|them|my|in|an?|another|for|a new)\b",
         r"\bbook\b(?<!re book)(?! (?:it|that|this|them|those)\b)(?! (?:one|that one|this one)\b)",
         r"\bschedul(?:e|ing) (?:me|us|an?|another|in)\b",
         # someone of the clinic's asked to see the caller: "can Dr <name> see me?", "could someone see him today",
         # "I need <name> to look at my knee" (never "you": "can you see my booking?")
         r"\b(?:can|could|would|will) (?!you\b|i\b|we\b)(?:\w+ ){1,3}?(?:see|fit in|squeeze in) (?:me|us|him|her|them)\b",
         r"\b(?:need|want|would like) (?!you\b)(?:\w+ ){1,3}?to (?:look at|have a look at|check|see to)\b",
         # "are y'all taking new patients?": someone asking to become one
         r"\b(?:taking|accepting|take|accept)(?: on)? (?:any )?new (?:patients|clients)\b",
         r"\b(?:make|get|arrange|set up|organise|organize|need|want|like|grab|after|looking for|request|"
         r"requesting|get in for|wanting) (?:me |us )?(?:to (?:make|book|get|have) )?(?:an?|another|a new|one more|"
         r"some|an urgent|a quick) (?:[a-z]+ ){0,2}?(?:'s )?" + _APPT + r"\b",
         r"\bnew (?:appointment|booking)\b",
         r"\bbook (?:it|that|them|me) (?:in )?(?:for|on)\b",
         r"\b(?:see|seeing|get in to see|come in to see|get in with) (?:a |an |the |one of (?:the|your) )?"
         r"(?:someone|somebody|doctor|dr|physio|physios|physiotherapist|practitioner|therapist|chiro|"
         r"chiropractor|massage therapist|masseuse|specialist|clinician|gp|nurse|podiatrist|dentist|osteopath|"
         r"osteo|hygienist|optometrist|dietitian|dietician|acupuncturist|audiologist|psychologist|counsellor|"
         r"counselor)s?\b",
         r"\b(?:fit|squeeze|get|slot|pop|book) (?:me|us|him|her|them|(?:my|our) \w+) in\b",   # "get my son in"
         r"\bcome in (?:for|to see|and see|and get)\b",
         r"\bnext available (?:appointment|time|slot|spot)\b",
         r"\b(?:get|book|grab|have|take|want|like|need) the (?:first|last|earliest|next|latest|soonest) "
         r"(?:available )?(?:appointment|slot|spot|time|opening)\b"),
    rule("book", "medium",
         r"\b(?:do|have) you (?:guys |folks |lot |all |people )?(?:have|got) (?:any(?:thing| time| times| "
         r"appointments?| availability| openings?| "
         r"spots?| slots?| space| room| gaps)|something|a spot|a slot|an opening|availability|room|space)\b",
         r"\b(?:is there|are there) (?:anything|any (?:appointments?|times?|availability|spots?|slots?|openings?|"
         r"gaps))\b",
         r"\b(?:any|your) availability\b|\banything (?:available|free|open)\b",
         r"\bcan i come in\b|\bcould i come in\b|\bcome in (?:today|tomorrow|this|next|on)\b",
         # not one the caller (or someone of theirs) already has ("I have an appointment coming up", "my mam has an
         # appointment with ye on Monday")
         r"(?<!\bi have )(?<!\bwe have )(?<!\bi have got )(?<!\bwe have got )(?<!\bi had )(?<!\bi already have )"
         r"(?<!\bhas )(?<!\bhas got )(?<!\balready has )(?<!\bhad )"
         r"\b(?:an|another) (?:appointment|booking)\b",
         r"\b(?:first|earliest|next) available\b",
         r"\bwhen can (?:i|we) (?:come|get|see)\b",
         r"\bcan (?:i|we|he|she) get in\b",   # "can I get in somewhere?", "can I get in this week?"
         r"\bwhat is the (?:earliest|soonest|next)(?: one| time| appointment| slot)? (?:you|you have|you have got|you "
         r"got|available)\b",
         r"\b(?:someone|somebody|you|a physio|a doctor) to (?:look at|check|see to|have a look at) (?:it|this|my)\b",
         # "I'd like a doctor to have a look at it", "could one of the physios take a look at my shoulder"
         r"\b(?:someone|somebody|you|one of (?:you|the \w+|your \w+)|(?:a|an|the) \w+)(?: to)? (?:have|take) a look "
         r"at (?:it|this|that|my|his|her|our|their|him)\b",
         # "I'm due my check-up", "she's overdue for a clean"
         r"\b(?:i am|we are|he is|she is|they are|i think i am) (?:due|overdue) (?:for )?(?:a|an|my|our|his|her|"
         r"their)\b",
         # "I'm calling to get my teeth cleaned", "I need to have my knee looked at"
         r"\b(?:to|can i|could i|i need to|i want to|i would like to) (?:get|have) (?:my|me|our|his|her|their) "
         r"(?:\w+ ){1,2}(?:looked at|checked|checked out|cleaned|seen to|seen|fixed|treated|sorted|examined|"
         r"assessed|done)\b",
         r"\b(?:if|whether) you (?:have|had|have got|would have) (?:any|anything|a spot|a slot|an opening|room|"
         r"space|availability)\b",
         r"\bany (?:[a-z]+ )?(?:appointments|availability|openings|spots|slots)\b(?! (?:booked|i have|coming up)\b)"),
)

# a booking the caller (or someone of theirs) holds, told of: "I have an appointment", "my husband's got a
# session", "I'm booked in" (not "do you have an appointment ...", which asks for one)
HOLDS = r"(?:have|has|have got|has got|got) (?:an?|my|the|his|her|our|their)"   # "I've got a ...", "he has his ..."
_HELD_BOOKING = (r"(?<!\byou )\b(?:" + HOLDS + r" (?:\w+ ){0,2}?(?:appointment|booking|session|visit|consult|"
                 r"consultation)|(?:am|is|are) booked)\b")
# ... and another day asked for it
ANOTHER_DAY_FOR_IT = (r"(?: \S+){0,30}? (?:instead\b(?! of)|(?:can|could) (?:we|i|he|she|you|they) "
                      r"(?:\w+ )?(?:do|make it|come(?: in)?|have it|go for|switch (?:it )?to|change (?:it )?to) "
                      r"(?:\w+ ){0,3}?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|next|"
                      r"another|a different|later|earlier|the day after)\b)")

RESCHEDULE = (
    rule("reschedule", "high",
         r"\bre ?(?:schedul\w*|book\w*|arrang\w*)\b",
         # not an event of the caller's told of as put off ("the wedding's been postponed")
         r"(?<!\bbeen )(?<!\bwas )(?<!\bwere )(?<!\bgot )(?<!\bgetting )\bpostpon\w*\b",
         r"\b(?:move|moving|change|changing|shift|shifting|switch|switching|swap|swapping|push|pushing|bring|"
         r"bringing|put off|put back|adjust|amend|transfer) (?:\w+ ){0,2}?" + _MY + r" (?:\w+ )?"
         r"(?:appointment|appointments|booking|session|visit|consult|consultation|time|date|day)\b",
         # "move the one with Dr Roe", "change the later one", "shift the Thursday one"
         r"\b(?:move|change|shift|reschedule|push back|bring forward) the (?:\w+ )?one (?:with|on|at|for)\b|"
         r"\b(?:move|change|shift|reschedule) the (?:later|earlier|first|second|last|other) one\b",
         # "I need to move the Thursday one", "push the massage one"
         r"\b(?:move|change|shift|push|reschedule) the \w+ one\b",
         r"\b(?:push|pushing|put|bring|bringing|move|moving|shift) (?:it|that|this|them|mine|things) ?"
         r"(?:back|forward|earlier|later|out|up|to (?:another|a different|a later|an earlier))\b",
         r"\b(?:move|change|shift|switch|swap|push|bump) (?:it|that|this|them|mine) (?:to|for|until|till)\b",
         # "push back my follow-up", "bump back the one on Friday"
         r"\b(?:push|pushing|bump|bumping) back (?:my|our|his|her|their|the|it|that)\b",
         r"\bcancel\w*\b(?: [a-z']+){0,6} and (?:re ?book|book|make|get|schedule|find) (?:another|a new|a different|"
         r"one for|it for|me in for|something)\b",
         # a booking held, then another day asked for it: "I have an appointment tomorrow ... can we do Thursday
         # instead?", "I'm booked in Monday, could I come Wednesday?", "he's got a session Friday, can he do Monday"
         _HELD_BOOKING + ANOTHER_DAY_FOR_IT),
    rule("reschedule", "medium",
         r"\b(?:a|another) (?:different|new) (?:day|time|date)\b",
         r"\bmake it (?:later|earlier)\b",
         # not what someone can or cannot move ("he can move it grand", "I can't move it" of a sore wrist)
         r"(?<!\bcan not )(?<!\bcould not )(?<!\bhe can )(?<!\bshe can )(?<!\bthey can )(?<!\bi can still )"
         r"(?<!\bhe could )(?<!\bshe could )\b(?:move|change|shift|push|bump) (?:it|that|this|them)\b",
         r"\b(?:move|change|shift) one of (?:them|those|these)\b"),
)

CANCEL_ALL = (
    rule("cancel_all", "high",
         r"\bcancel\w*(?: \w+){0,3} (?:all|both|everything|every one|each|the lot)\b(?! (?:but|except))",
         r"\b(?:all|both|everything)(?: of)?(?: my| our| the| them| those| these)?(?: appointments?| bookings?)? "
         r"(?:cancel\w*|called off)\b"),
)

CANCEL = (
    rule("cancel", "high",
         r"\bcancel(?:l?ed|l?ing)?\b",
         r"\bcancellation\b(?! (?:fee|fees|policy|list|charge|charges|cost))",
         r"\bcall (?:it |that |the appointment )?off\b",
         r"\b(?:do not|no longer) need (?:the|my|that|this|our) (?:appointment|booking)\b",
         r"\b(?:delete|scrap|drop) (?:my|the|our) (?:appointment|booking)\b",
         # a booking held, then not needed: "I'm booked in Friday ... so I'll not be needing it now"
         _HELD_BOOKING + r"(?: [a-z']+){0,30}? (?:will not|do not|does not|would not|not) (?:be )?need(?:ing)? "
         r"(?:it|that|them|the appointment|the booking)(?= *$| (?:now|any ?more|after all|so|then|thanks|thank you)\b)",
         negation_window=4),
    rule("cancel", "medium",
         r"\b(?:can not|could not|will not|would not|unable to|not (?:be )?able to|not going to be able to|"
         r"not going to) (?:make (?:it|the|my|that|our|this)|attend|get there|be there|"
         r"come(?: in)?(?= *$| (?:tomorrow|today|anymore|after all|to (?:it|the|my|our|that)|then|that day|"
         r"on the day|but|so|and)\b))"
         # "I can't get there till after work": when they can come, not a cancellation
         r"(?! (?:till|until|before|by) )",
         r"\bno longer need\b",
         negation_window=0),
)

QUERY = (
    rule("query", "high",
         r"\b(?:when|what time|what day|what date|where) (?:is|was|are) (?:my|our|his|her|the) (?:next |upcoming )?"
         r"(?:appointment|appointments|booking|bookings|session|visit|consult)\b",
         r"\b(?:when|what time|what day|what date|where) (?:my|our|his|her) (?:next |upcoming )?(?:appointment|"
         r"appointments|booking|bookings|session|visit) (?:is|are|was)\b",
         r"\bwhat (?:appointments|bookings) (?:do|have|did) (?:i|we)\b|\bwhat (?:appointments|bookings) (?:i|we) have\b",
         r"\b(?:do|have|did) (?:i|we) (?:have|got|make) (?:an?|any|anything|something|my)? ?(?:appointments?|"
         r"bookings?|anything booked|something booked|booked|anything (?:on|coming up|scheduled))\b",
         r"\b(?:am|are) (?:i|we) (?:booked|booked in|scheduled)\b",
         r"\b(?:when|what time|what day|what date) (?:am i|are we|is he|is she) (?:due|due in|coming in|supposed to come|"
         r"meant to come|meant to be in|in next|next in)\b",
         r"\bis (?:my|the|our) (?:appointment|booking) (?:still )?(?:on|booked|confirmed|at|for)\b",
         r"\b(?:confirm|check|verify|double check|remind me (?:of|about)|tell me)(?: \w+){0,2} (?:my|our|his|her) "
         r"(?:next |upcoming )?(?:appointment|appointments|booking|bookings|session|visit)\b",
         r"\bforgot (?:when|what time|what day) (?:my|our|the)\b",
         r"\b(?:when|what time|what day|what date) (?:is|are) (?:my|our|his|her) next\b",
         # "when my next physio is", "what time my next clean is"
         r"\b(?:when|what time|what day|what date) (?:my|our|his|her) next (?:\w+ ){1,2}(?:is|was|will be)\b",
         r"\b(?:when|what time|what day|what date) (?:i am|we are|he is|she is|i have got|i) (?:booked|booked in|"
         r"scheduled|due in|due|coming in|supposed to come in|meant to come in|in next)\b"),
    # an appointment said, then its day or time forgotten or its reminder lost ("I have an appointment but I forgot
    # the day", "... I lost the card, can you tell me when it is?"): a question about it, unless a change to it
    # is asked for too ("... I forgot the day, I need to cancel it")
    rule("query", "medium",
         r"\b(?:appointment|booking|booked)\b.*\b(?:forgot|forgotten|lost|misplaced|can not remember|do not "
         r"remember|can not find|not sure (?:of|about))(?: the| my| what| which)?(?: \w+)? (?:day|date|time|card|"
         r"reminder|letter|text|email|message|details)\b",
         r"\b(?:appointment|booking|booked)\b.*\b(?:tell me|check|remind me|let me know|find out|confirm|look up)"
         r"(?: for me)? (?:when|what time|what day|what date) (?:it is|that is|it was|it will be)\b"),
    # said with a negation and still a question about the booking: "I can't remember when my appointment is",
    # "I don't know what time I'm booked in", "I've forgotten what day my appointment is"
    rule("query", "high",
         r"\b(?:remember|recall|know|sure|forgotten|forget|find|mind) (?:when|what time|what day|what date|where) (?:my|our|"
         r"his|her|the|i am|we are|i have) (?:next |upcoming )?(?:appointment|appointments|booking|bookings|session|"
         r"visit|booked|scheduled|due|coming)\b",
         negation_window=0),
    rule("query", "medium",
         r"\b(?:my|our) (?:next|upcoming) (?:appointment|booking)s?\b",
         r"\bupcoming (?:appointments|bookings)\b"),
)

PRICE = (
    rule("price", "high",
         r"\bhow much\b(?! (?:\w+ )?(?:" + _MEDS[3:-1] + r"|should i|can i|do i|time|longer|notice|pain|water|"
         r"exercise|rest)\b)",
         r"\b(?:cost|costs|costing|price|prices|pricing|priced|fee|fees|charge|charges|expensive|cheap|"
         r"affordable|rebate|rebates|out of pocket)\b",
         r"\bwhat (?:does|would|will|did) (?:that|it|this|that one|the \w+) come to\b",
         # a sum asked after: "is that still ninety bucks for the hour?", "it's 95 euro, is it?"
         r"\b(?:is|was|will) (?:that|it|this|the \w+) (?:still |going to be |be |about |around |roughly )*"
         r"(?:\w+ ){1,3}(?:dollars|bucks|quid|euros?)\b|\b(?:dollars|bucks|quid|euros?) (?:is it|right|yeah|still)\b"),
    # a country's own words for paying (its public scheme, its insurers) come from the region table
    rule("price", "medium",
         r"\b(?:health insurance|insurance|payment|pay for)\b"),
)

HOURS = (
    rule("hours", "high",
         r"\b(?:opening|open|business|trading|office|clinic|your|the) (?:[a-z]+ )?hours\b",
         r"\bare you (?:guys )?(?:open|closed|still open)\b",
         r"\b(?:what time|when) (?:do|are|does|is) (?:you|the clinic|it|the practice|the office|reception)"
         r"(?: \w+)?(?: guys)? (?:open|close|shut|finish|start|opening|closing)\b",
         r"\bopen (?:on|this|tomorrow|today|on the|weekends?|saturdays?|sundays?|mondays?|late|early|public holidays|"
         r"after hours|at (?:night|weekends))\b",
         r"\b(?:what|which) days (?:are|do) you\b",
         # "do you do Saturdays at all?", "do you work weekends?", "do you open late evenings?"
         r"\bdo you (?:do|work|open|see (?:people|patients|anyone)) (?:on )?(?:a )?(?:late )?(?:saturdays?|sundays?|"
         r"weekends?|the weekend|evenings?|nights?)\b",
         r"\b(?:closing|opening) time\b",
         r"\bwhen are you (?:open|closed)\b|\bwhen do you (?:open|close)\b"),
    rule("hours", "medium", r"\bhours\b(?! (?:ago|later|earlier))"),
)

# what follows "on", "in" that is no place: a person, a day or time ("that's on me, right?", "it's in my knee")
_NOT_A_PLACE = (r"(?!(?:me|you|us|him|her|them|it|my|your|his|our|their|its|monday|tuesday|wednesday|thursday|"
                r"friday|saturday|sunday|today|tomorrow|tonight|time|\d|the (?:\d|day|morning|afternoon|evening|"
                r"weekend|week|first|second|last|\w+ day|\w+(?:st|nd|rd|th)))\b)")

ADDRESS = (
    rule("address", "high",
         r"\bwhere (?:exactly |abouts |about )?(?:is|are|abouts|about)\b(?! (?:my|our|his|her)\b)"
         r"(?! you (?:calling|ringing|from)\b)",
         r"\bwhere(?: are| is)? (?:you|the clinic|your clinic|it|that|this) (?:located|based|situated)\b",
         r"\bwhereabouts\b(?! (?:is |are )?(?:my|our|his|her)\b)",
         r"\b(?:what is|what are|give me|tell me|need|send me|have) (?:the|your|its|their) (?:street )?address\b",
         r"\baddress(?<!my address)(?<!home address)(?:es)?\b(?! is\b)",
         r"\bdirections\b|\bhow (?:do|can) i (?:get|find) (?:there|to you|you|to the clinic|to it)\b",
         # "how do I find your <site> clinic?", "how would we get to the <site> site?"
         r"\bhow (?:do|can|would|should|will) (?:i|we) (?:get|find|reach) (?:to )?(?:the|your) (?:\w+ ){0,3}"
         r"(?:clinic|practice|office|site|branch|surgery|location|rooms|centre|center|one)\b",
         # parking asked about ("is there parking?", "what's the parking like?"), not told of ("I'm just parking up",
         # "I don't want to deal with parking at <site>")
         r"\b(?:is there|are there|any|do you have|have you got|what is the|how is the|where is the|is the|is there any|"
         r"about|free|on site|onsite|street|car) parking\b|\bparking (?:available|like|nearby|close by|on site|onsite|"
         r"spaces?|spots?|there)\b(?! (?:up|the car)\b)|^(?:and |what about |how about )?(?:the )?parking$|"
         r"\bwhere (?:can|do|should) (?:i|we) park\b",
         r"\b(?:what|which) (?:locations|clinics|branches|sites)\b|\bhow many (?:locations|clinics|branches)\b",
         r"\b(?:what|which) (?:street|suburb|road)\b",
         # where a site is, asked for as a check: "that's on <street>, right?", "you're the one down <place>, on
         # <street>, is it?", "is that the one on <street>?"
         r"\b(?:that is|it is|you are|that one is|they are|the \w+(?: \w+)? (?:one|clinic|office|branch) (?:is|'s))"
         r"(?: the one)? (?:on|down|in|off|near|up|by|over) "
         + _NOT_A_PLACE + r"(?:\S+ ){1,6}?(?:right|is it|yeah|yes|isn't it|is not it|are not you|aren't you|"
         # ... the question may go on to the number on it: "the <site> one's on <street>, yeah? What number?"
         r"correct|no)(?:$| what (?:number|end|part|floor)\b)",
         r"\b(?:is|are) (?:that|you|that one|the \w+ one|this) (?:the one )?(?:on|down|off|near|by) " + _NOT_A_PLACE
         + r"\S+"),
    rule("address", "medium", r"\b(?:nearest|closest) (?:clinic|location|branch|one|site|to)\b"),
)

SERVICE_INFO = (
    rule("service_info", "high",
         r"\bwhat(?: is| are| does| do)? (?:involved|included)\b",
         r"\b(?:include|includes|involve|involves|entail|entails|consist of|consists of)\b",
         r"\bwhat happens (?:in|at|during|on|with)\b",
         r"\bhow long (?:is|does|will|are|do|would|takes)\b",
         r"\bdifference between\b",
         r"\bwhat (?:services|treatments|kind of (?:services|treatments|things|appointments))\b",
         r"\bwhat do you (?:offer|do|treat|provide|specialise in|specialize in)\b"),
    rule("service_info", "medium",
         r"\bwhat should i (?:bring|wear|expect)\b",
         r"\bdo you (?:offer|do|treat|provide|have) (?:\w+ ){0,2}(?:services?|treatments?|therapy|massages?|"
         r"physio\w*|needling|pilates|hydrotherapy|shots?|vaccin\w*)\b",
         r"\btell me (?:more )?about\b"),
)

HUMAN = (
    rule("human", "high",
         r"\b(?:speak|talk|chat) (?:to|with) (?:a |an |the |some |your |one of )?(?:real |actual |live |human |"
         r"proper )?(?:person|human|someone|somebody|anyone|anybody|receptionist|reception|front desk|staff|"
         r"staff member|member of (?:the )?staff|member of (?:the )?team|manager|practice manager|operator|people|"
         r"team|admin|office)\b",
         r"\b(?:real|actual|live|proper) (?:person|human|receptionist)\b|\bhuman being\b",
         # the person first, then the verb: "is there someone I could speak to?"
         r"\b(?:a (?:real )?person|a human|someone|somebody|anyone|anybody)(?: (?:in|at|on|from) (?:the )?\w+(?: \w+)?)?"
         r" (?:i|we) (?:can|could|might) "
         r"(?:speak|talk|chat) (?:to|with)\b",
         r"\b(?:put|transfer|connect|pass|patch) me (?:through|over|to)\b|\bput me through\b",
         r"\boperator\b|\bcustomer service\b",
         r"\btransfer (?:me|my call|the call)\b"),
    rule("human", "medium",
         r"\breception(?:ist)?\b",
         r"\bare you (?:a )?(?:robot|bot|machine|computer|real|human|person|ai|recording)\b",
         r"\b(?:speak|talk) (?:to|with) (?:dr|doctor|the doctor|the physio|my physio|the practitioner)\b",
         r"\breturning (?:a|your|the|someone's|their) (?:call|message)\b|\bmissed (?:a )?call\b|"
         r"\b(?:someone|you) (?:called|rang) me\b|\bgot a (?:call|message) from\b"),
)

# "I'll ring back", "I'll just call back later", "let me call back", "I'll check and call back": the caller will call
# again, which asks nothing
_CALLER_WILL = (r"(?<!\bi will )(?<!\bwe will )(?<!\bi will just )(?<!\bi will have to )(?<!\bi will try and )"
                r"(?<!\bi will try to )(?<!\bi can )(?<!\bi can just )(?<!\bi shall )(?<!\bi am going to )"
                r"(?<!\bi might )(?<!\bi may )(?<!\bi could )(?<!\blet me )(?<!\bi would better )(?<!\bi need to )"
                r"(?<!\bi will give you a )(?<!\bi will give them a )"
                # "I'll have a think and ring back": the caller's own plan, said after what they will do first
                r"(?<!\band )(?<!\bthen )")

CALLBACK = (
    rule("callback", "high",
         _CALLER_WILL + r"\b(?:call|ring|phone)(?:s|ed)? (?:me |us |him |her )?back\b",
         _CALLER_WILL + r"\bcall ?back\b",
         r"\b(?:have|get|ask) (?:someone|somebody|them|her|him|the \w+|\w+) (?:to )?(?:call|ring|phone|contact) "
         r"(?:me|us)\b",
         r"\bgive (?:me|us) a (?:call|ring|bell)\b",
         r"\b(?:leave|take|pass on|get) a message\b",
         r"\b(?:call|ring|phone) (?:me|us) (?:later|tomorrow|this afternoon|when|once|after)\b",
         r"\b(?:can|could|would|will) (?:someone|somebody|you|they|she|he) (?:call|ring|phone|contact) (?:me|us)\b"
         r"(?! (?:on|at)\b)"),
    rule("callback", "medium",
         r"\b(?:just )?(?:ring|call|phone|contact) (?:me|us)\b(?! (?:on|at)\b)(?! (?:a|an) )"),
)

MEDICAL_ADVICE = (
    rule("medical_advice", "high",
         r"\bshould (?:i|we) (?:be )?(?:icing|heating|using (?:ice|heat|a|an)|resting|stretching|taking|"
         r"applying|wearing|strapping|exercising|walking on|worried|concerned)\b",
         r"\b(?:ice|icing)(?: it)? or (?:using |use |put |putting )?(?:heat|heating|a heat)\b|"
         r"\b(?:heat|heating)(?: it)? or (?:using |use |put )?(?:ice|icing)\b",
         r"\bshould i (?:take|use|ice|heat|put|apply|stretch|rest|keep|stop|avoid|be worried|worry|exercise|"
         r"walk|run|go to (?:the )?(?:hospital|emergency|er|ed|gp)|wear|strap|massage|elevate|train|play|lift|"
         r"be concerned)\b",
         r"\bis (?:it|that|this) (?:normal|safe|serious|broken|fractured|infected|dangerous|something to worry "
         r"about|a (?:sprain|tear|fracture|break|infection|bad sign))\b",
         r"\b(?:normal|usual) (?:that|for (?:it|my|a|the)|to (?:have|feel|be))\b",
         r"\bwhat (?:dose|dosage)\b|\bhow (?:much|many)(?: \w+)? (?:should|can|do) i take\b|"
         # "a dose of" what is not a medicine is a bout of an illness ("a desperate dose of the flu")
         r"\bhow many (?:tablets|pills|capsules)\b|\bdosage\b|\bdose\b(?! of\b)|"
         r"\bdose of (?:the |my |his |her |that |this |\w+ )?" + _MEDS + r"\b",
         r"\bcan i (?:take|have) (?:some |an? |my )?" + _MEDS + r"\b",
         r"\b(?:ice|heat) (?:it|or heat|or ice|pack)\b",
         r"\bwhat is (?:wrong|going on|happening) with (?:my|me|it|him|her)\b",
         r"\bwhat (?:do you think|could|might) (?:it|this|that) (?:is|be)\b",
         r"\bdiagnos\w*\b",
         r"\bdo (?:i|we) need (?:an? )?(?:x ray|xray|scan|mri|surgery|operation|antibiotics|stitches|ultrasound)\b",
         r"\bwhat (?:should|can) (?:i|we) (?:do|take) (?:about|for|with)\b",
         r"\bside effects?\b",
         r"\bhow (?:do|can|should) i (?:treat|manage|relieve|ease|fix|heal)\b"),
    rule("medical_advice", "medium",
         r"\b" + _MEDS + r"\b(?= (?:or|and|for|with|okay|ok|safe)\b)"),
)

NON_SERVICE = (
    rule("non_service", "high",
         r"\b(?:i am|this is|we are|calling as) (?:a |an |the )?(?:sales|rep|representative|salesperson|"
         r"supplier|recruiter|vendor|courier|delivery driver|account manager)\b",
         r"\bsales (?:rep|representative|call|team|department|manager)\b",
         r"\bcalling (?:from|on behalf of) (?:a |an |the )?(?:\w+ ){0,3}(?:company|supplier|supplies|pharmacy|"
         r"chemist|lab|laboratory|pathology|hospital|insurance|insurer|bank|agency|council|marketing|media|"
         r"solutions|group|software|telecom|energy|recruitment|pty|ltd|limited|inc|corporation|distributors?)\b",
         r"\b(?:this is|it is|i am) (?:\w+ )?(?:from|with|at) (?:the )?(?:pharmacy|chemist|lab|laboratory|"
         r"pathology|hospital|radiology|imaging|supplier)\b",
         r"\b(?:this is|it is) the (?:pharmacy|chemist|lab|laboratory|pathology|hospital|radiology)\b",
         # "this is Steve from BrightSmile Dental Supplies": a business calling, whatever its trade
         r"\b(?:this is|it is|i am) (?:\w+ ){0,2}(?:from|with|at) (?:\w+ ){0,4}(?:supplies|supply|suppliers?|"
         r"distributors?|wholesale|pty|ltd|limited|inc|llc|corporation|solutions|marketing|media)\b",
         r"\bfollowing up (?:on|about) (?:your|the|an?|our) (?:\w+ ){0,2}(?:order|invoice|quote|proposal|"
         r"delivery|shipment|account)\b",
         r"\bsuppliers?\b|\binvoices?\b|\binvoic\w+\b|\baccount balance\b|\boutstanding (?:balance|account|invoice|"
         r"amount|payment)\b|\bbilling (?:department|enquiry|inquiry|query|question|issue|problem|team|error)\b",
         r"\b(?:about|regarding|with) (?:my|an|the|your|our) (?:bill|billing|account|statement)\b",
         r"\b(?:is|are) the (?:owner|owners|practice owner|business owner|director|decision maker)s? (?:available|"
         r"there|in|around)\b|\b(?:speak|talk) (?:to|with) the (?:owner|practice owner|business owner|director|"
         r"decision maker)\b",
         r"\b(?:we|our company|our team|i) (?:help|work with|partner with|provide|offer|specialise|specialize)\b"
         r"(?: \w+){0,3} (?:clinics|practices|businesses|practice owners)\b",
         r"\b(?:charged|billed) (?:me |us )?(?:twice|double|two times|too much|the wrong|incorrectly)\b|"
         r"\b(?:double|over) ?charged\b|\bovercharged\b|\brefund\b|\bbilling (?:mistake|error)\b",
         r"\bjob application\b|\bapply(?:ing)? for (?:a |the |any )?(?:job|position|role|vacancy)\b|"
         r"\b(?:are you|you are|is the clinic) hiring\b|\b(?:any )?(?:jobs|vacancies|positions|roles) "
         r"(?:available|going|open)\b|\b(?:my )?(?:resume|cv)\b",
         r"\bmarketing\b|\badvertis\w*\b|\bseo\b|\bsponsorship\b|\bbusiness opportunity\b|\bpartnership\b",
         r"\b(?:delivery|parcel|package|courier) (?:for|from|to)\b"),
    rule("non_service", "medium", r"\bsurvey\b|\bdelivery\b|\bparcel\b|\bcourier\b|\bgoogle\b|\bwebsite\b|"
         r"\bsearch ranking\b|\brank higher\b|\bthe owner\b",
         # not "I'm not a patient with you yet", someone new to the clinic; and said with a price or a booking
         # asked for ("I'm not a patient or anything, just pricing around"), someone who may become one
         r"\b(?:i am|we are) not (?:a |an )?(?:patient|client|customer)\b(?!(?: \w+){0,3} yet\b)"),
)

# a caller taken into a task they never meant, saying so: "I'm not booking yet, just asking", "I don't need to book,
# I only rang to ask about the address" (not "I'm just asking if you have Thursday", nor "not booking for me")
WITHDRAW = (
    rule("withdraw", "high",
         r"\b(?:i am|i was|we are|we were|i|we) (?:only|just|simply) (?:asking|enquiring|inquiring|checking|"
         r"ringing to ask|calling to ask|rang to ask|called to ask)\b(?! (?:if|whether|for|about (?:a |an )?"
         r"(?:appointment|booking|times?|availability|slots?)))",
         r"\b(?:only|just) (?:rang|called|ringing|calling|phoned) (?:up )?to (?:ask|check|find out)\b",
         r"\b(?:not|no) (?:booking|wanting to book|looking to book|trying to book|making (?:a booking|an appointment))"
         r"(?: anything| yet| today| now| just yet| at the moment)*\b(?! (?:for|in for)\b)",
         r"\b(?:do not|did not|no) need to (?:book|make (?:a booking|an appointment))\b(?! (?:for|in for)\b)",
         r"\b(?:do not|did not) want to (?:book|make (?:a booking|an appointment))(?: anything)?(?: yet| today| now)?\b"
         r"(?! (?:for|in for|until|till|before|on)\b)"),
)

TASK_RULES = RuleSet(
    *BOOK, *RESCHEDULE, *CANCEL_ALL, *CANCEL, *QUERY, *PRICE, *HOURS, *ADDRESS, *SERVICE_INFO, *HUMAN,
    *CALLBACK, *MEDICAL_ADVICE, *NON_SERVICE, *WITHDRAW,
)
