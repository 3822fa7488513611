"""Ordinary English words a caller uses, which are never taken as a person's
name and never fuzzily matched to a catalog entry.

Some names are also ordinary words ("May", "Will", "Grace"): those are in
NAME_WORDS too, and the name rules accept them only beside a clear name.
"""

from __future__ import annotations

_FUNCTION = """
a an the this that these those there here it its itself i me my mine myself we us our ours you your yours
he him his she her hers they them their theirs one ones someone somebody anyone anybody everyone everybody
no nobody none nothing something anything everything who whom whose what which when where why how whatever
whoever whichever wherever and or but nor so yet if then than because as while though although unless
until till since for of to from in on at by with without about above below over under into onto off out up
down through between among around across along after before during near per via upon within again also too
very really quite just only even still already always never ever often sometimes maybe perhaps probably
actually basically literally not yes yeah yep yup yea ya yah nope nah naw ok okay alright right sure
fine well oh ah hey hi hello hullo g'day gday bye goodbye cheers thanks thank please sorry pardon excuse
mhm mm mmm huh uhm ahm um uh er erm hmm like kind sort lot lots bit much many more most less least few little some any all
both each every either neither other another such same own else enough whole half quarter
is am are was were be been being do does did doing done have has had having will would shall should can
could may might must ought need needs needed let lets get gets got getting gotten go goes going gone went
come comes coming came make makes made making take takes took taking taken give gives gave given put say
says said saying tell tells told ask asks asked know knows knew known think thinks thought want wants
wanted wanting see sees saw seen seeing look looks looking looked find found try tried trying call calls
called calling ring rang ringing speak speaking spoke talk talking talked hear heard mean meant means
wait waiting hold hang help helping work works working worked use used keep kept leave left start
started stop stopped change changed changing move moved moving book booked booking bookings cancel
cancelled canceled cancelling canceling reschedule rescheduled rebook confirm confirmed check checked
arrange organise organize schedule scheduled set able unable happen happened happens feel feeling felt
hurt hurts hurting pay paid cost costs charge pass passed send sent bring brought wear stand
standing sit sitting walk walking run running lift lifting play playing
"""

_CALL_WORDS = """
appointment appointments appt booking session sessions visit visits consult consultation consultations
time times day days week weeks weekend month months year years today tomorrow tonight yesterday morning
afternoon evening night noon midday midnight lunchtime lunch early earlier earliest late later latest soon
sooner soonest asap first second third fourth fifth last next previous following current usual
monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
january february march july september october november december jan feb mar apr jun jul aug sep sept oct
nov dec
zero oh two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand double
triple plus am pm oclock o'clock
name names surname first last full middle maiden spell spelled spelt spelling letter letters
space hyphen dash apostrophe capital
number numbers phone mobile cell landline contact details address email date birth born birthday dob
clinic practice office reception receptionist front desk staff doctor dr doctors physio physiotherapist
physiotherapy therapist therapy massage masseuse nurse gp practitioner practitioners specialist
chiropractor chiro osteo osteopath podiatrist dentist psychologist counsellor patient patients new old
existing regular returning follow followup review standard initial shot flu jab vaccine injection
treatment treatments service services price prices fee fees gap rebate medicare insurance fund health
private public cash card hours open opening closed closing location locations branch site parking
available availability free busy slot slots spot spots opening openings option options choice choices
pain back knee knees neck shoulder shoulders hip hips ankle ankles foot feet leg legs arm arms wrist
hand hands elbow head headache migraine chest stomach injury injured sore stiff swollen swelling sprain
strain broken tear torn problem problems issue issues thing things stuff question questions message
emergency urgent urgently serious help accident ambulance hospital
good great perfect lovely brilliant excellent awesome wonderful nice cool fantastic beautiful thanks
correct wrong incorrect true false exactly definitely absolutely certainly totally course indeed
different another else instead rather preferably prefer preference whenever anytime
person human someone real actual live operator manager person's
son daughter wife husband partner mum mom mother dad father child children kid kids baby brother sister
family friend boss colleague myself yourself himself herself ourselves themselves
calling regarding re concerning inquiry enquiry query
yes no not never nothing nope sure fine bye thank thanks
"""

_ADJECTIVES_AND_MORE = """
happy unhappy sad glad busy tired sick ill unwell better worse well bad fine okay alright ready sorry
new old young big small long short high low hot cold warm quick slow fast easy hard simple sure unsure
worried scared nervous pregnant diabetic allergic home away back here there now then soon today local
interested looking hoping trying wondering thinking calling ringing phoning speaking just also only
exhausted confused desperate frustrated stuck lost injured recovering struggling afraid annoyed keen
outside inside downstairs upstairs nearby around sorted ready done finished free available late early
over under married single retired unemployed student pensioner member client customer
still already about around maybe possibly hopefully unfortunately fortunately apparently anyway please
"""

FUNCTION_WORDS = frozenset(_FUNCTION.split()[:_FUNCTION.split().index("is")])
STOP_WORDS = frozenset((_FUNCTION + _CALL_WORDS + _ADJECTIVES_AND_MORE).split())

# Ordinary words that are also first names or surnames. A name made only of
# these is taken only when nothing else was said.
NAME_WORDS = frozenset("""
may june april august will mark bill rose grace hope joy faith frank sue ray pat dawn summer autumn jean
jack rob bob don art drew chase gene guy hunter king long young white brown green black wood hill day law
rich lane read page price cook baker hall sky amber ruby pearl iris holly ivy violet olive penny sandy
crystal daisy heather honey cherry misty rusty bell fox rice park lee short little young moore
mason carter walker fisher miller taylor parker porter turner cooper ward webb wells
april may june august christian noel rowan reed reid rocky sonny sunny storm jade jasmine lily poppy
""".split())

NAME_PARTICLES = frozenset({"van", "von", "der", "den", "de", "da", "del", "della", "di", "du", "la", "le",
                            "st", "te", "ter", "bin", "binti", "al", "el", "ben", "mac", "mc", "o", "ní", "ni", "nic",
                            "ó", "ua", "ap", "ferch", "ibn", "bint", "abu", "dos", "das", "des"})


# words that say a service is for children: a check-up or an assessment named as the children's, the kids', the
# paediatric one
CHILDREN_WORDS = frozenset({"children", "child", "childrens", "kids", "kid", "paediatric", "pediatric", "junior",
                            "juniors"})
