"""Services, sites and practitioners named by the caller."""

from __future__ import annotations

import pytest

from appliance.domain import ANYONE, Catalog, Location, Practitioner, Service

from .hearing import CATALOG_EASTSIDE, hear

SERVICES = [
    ("how much is a follow-up", ("followup",)), ("a follow up", ("followup",)), ("a followup", ("followup",)),
    ("a review", ("followup",)), ("just a standard appointment", ("followup",)),
    ("an initial consultation", ("initial",)), ("an initial consult", ("initial",)), ("an initial", ("initial",)),
    ("my first visit", ("initial",)), ("I'm a new patient", ("initial",)), ("a flu shot", ("flu",)),
    ("a flu jab", ("flu",)), ("the flu vaccine", ("flu",)), ("a remedial massage", ("massage",)),
    ("a massage", ("massage",)), ("remedial messages", ("massage",)), ("flu shots", ("flu",)),
    ("a review and a flu shot", ("followup", "flu")), ("a flu shot and then a massage", ("flu", "massage")),
    # a service said, then taken back for another
    ("a flu shot, actually no, sorry, a massage", ("massage",)), ("a massage, no wait, a review", ("followup",)),
    ("a review, no, a flu shot is what I need", ("flu",)),
]


@pytest.mark.parametrize(("text", "ids"), SERVICES)
def test_services(text: str, ids: tuple[str, ...]) -> None:
    assert hear(text, "service").service_ids == ids


@pytest.mark.parametrize("text", [
    "I have the flu", "I'm standing at the bus stop", "initially I thought it was fine", "I'll follow up later",
    "shots fired", "it's a standing appointment", "can you review my details", "yes", "my back hurts",
    "a message for the doctor", "first of all", "I'm new to the area",
])
def test_common_words_are_not_services(text: str) -> None:
    assert hear(text, "intent").service_ids == (), text


LOCATIONS = [
    ("the North Sydney one", "north"), ("North Sydney", "north"), ("the north clinic", "north"),
    ("the city clinic", "city"), ("City please", "city"), ("the City one", "city"),
    ("North Sydney please, the Miller Street one", "north"),
    # a site named by its street, where a site is asked for
    ("George Street, I always go to George Street", "city"), ("the George St one", "city"),
]


def test_a_street_said_where_no_site_is_asked_for_or_cued_is_no_site() -> None:
    assert hear("I live on George Street, can I book a follow-up", "intent").location_id is None


@pytest.mark.parametrize(("text", "location"), LOCATIONS)
def test_locations(text: str, location: str) -> None:
    assert hear(text, "location").location_id == location


def test_location_alias_and_near_miss() -> None:
    assert hear("Eastside", "location", catalog=CATALOG_EASTSIDE).location_id == "east"
    assert hear("the east side clinic", "location", catalog=CATALOG_EASTSIDE).location_id == "east"
    assert hear("east side", "location", catalog=CATALOG_EASTSIDE).location_id == "east"


PRACTITIONERS = [
    ("Dr Lee", "intent", "lee"), ("Doctor Lee", "intent", "lee"), ("Doctor Anna", "intent", "lee"),
    ("Anna Lee", "intent", "lee"), ("with Anna", "intent", "lee"), ("Raj Shah", "intent", "shah"),
    ("Raj Shaw", "intent", "shah"), ("with Raj please", "intent", "shah"), ("Raj", "practitioner", "shah"),
    ("Raj, please", "practitioner", "shah"), ("Shah", "practitioner", "shah"), ("Maria Gonzales", "intent", "gonzalez"),
    ("Dr Gonzalez", "intent", "gonzalez"), ("I'd like to see Maria", "intent", "gonzalez"),
    ("not Raj, Anna", "practitioner", "lee"),
]


@pytest.mark.parametrize(("text", "waiting_for", "practitioner"), PRACTITIONERS)
def test_practitioners(text: str, waiting_for: str, practitioner: str) -> None:
    assert hear(text, waiting_for).practitioner_id == practitioner


@pytest.mark.parametrize(("text", "waiting_for"), [
    ("Hi, this is Anna Ngata, I'd like to book", "intent"),     # a practitioner's given name as the caller's own
    ("sorry, I said that wrong, it's Anna Ngata", "dob"),
    ("no wait, it's Anna Ngata, not Anna Doe", "dob"),
])
def test_a_practitioners_name_inside_the_callers_own_name_is_no_practitioner(text, waiting_for) -> None:
    assert hear(text, waiting_for).practitioner_id is None


def test_a_practitioner_named_apart_from_the_callers_own_name_still_is_one() -> None:
    assert hear("Hi, this is Anna Ngata, I'd like to book with Anna", "intent").practitioner_id == "lee"


@pytest.mark.parametrize(("text", "waiting_for"), [
    ("anyone", "practitioner"), ("whoever", "practitioner"), ("no preference", "practitioner"),
    ("I don't mind", "practitioner"), ("anyone is fine", "practitioner"), ("doesn't matter", "practitioner"),
    ("whoever is available", "intent"), ("I'm happy to see anyone", "intent"), ("any physio is fine", "intent"),
    ("I don't mind who", "time_preference"),
])
def test_anyone(text: str, waiting_for: str) -> None:
    assert hear(text, waiting_for).practitioner_id == ANYONE


@pytest.mark.parametrize(("text", "waiting_for"), [
    ("Lee", "intent"), ("I'll see", "intent"), ("is anyone there", "intent"), ("can I talk to anyone", "intent"),
    ("I don't mind", "time_preference"), ("Anna Lee", "full_name"), ("Lee", "last_name"),
    ("my friend Anna recommended you", "intent"),
])
def test_no_practitioner(text: str, waiting_for: str) -> None:
    assert hear(text, waiting_for).practitioner_id is None


def test_everything_at_once() -> None:
    utterance = hear("book me a flu shot Friday at Eastside", catalog=CATALOG_EASTSIDE)
    assert utterance.has("book")
    assert utterance.service_ids == ("flu",)
    assert utterance.location_id == "east"
    assert utterance.window.label == "Friday"


def test_a_shortened_service_word() -> None:
    physio = Catalog(
        services=(Service("assessment", "Initial assessment", 45, 65.0, aliases=("first appointment",)),
                  Service("session", "Physiotherapy session", 30, 48.0, aliases=("standard session",))),
        locations=(Location("leith", "Leith Walk", "1 Leith Walk"),),
        practitioners=(Practitioner("fraser", "Isla Fraser", ("assessment", "session"), ("leith",)),),
    )
    assert hear("can I book a physio session for Saturday", catalog=physio).service_ids == ("session",)
    assert hear("a physiotherapy session", "service", catalog=physio).service_ids == ("session",)
    assert hear("my physical health", "intent", catalog=physio).service_ids == ()


def test_a_possessive_service_name_written_as_a_plural_still_matches() -> None:
    """Whisper writes "a doctor's visit" as "and Doctors visit.": the plural folds to "doctor", then to "dr"."""
    catalog = Catalog(
        services=(Service("visit", "Doctor's visit", 30, 120.0, aliases=("doctor's appointment",)),
                  Service("flu", "Flu shot", 15, 35.0)),
        locations=(Location("west", "Westside", "1 West St"),),
        practitioners=(Practitioner("nair", "Dr Priya Nair", ("visit", "flu"), ("west",)),),
    )
    for text in ("and Doctors visit.", "a doctor's visit", "doctors appointment please"):
        assert hear(text, "service", catalog=catalog).service_ids == ("visit",), text


def test_a_service_after_a_pronoun_is_no_verb_where_it_cannot_be_one() -> None:
    """"one of they D4 medicals" (Scots "they" for "those"): a name with a digit, or a plural, is no verb."""
    catalog = Catalog(
        services=(Service("d4", "Taxi licence medical", 30, 120.0, aliases=("D4 medical",)),
                  Service("gp", "GP appointment", 15, 0.0)),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("d4", "gp"), ("main",)),),
    )
    for text in ("they're saying I need one of they D4 medicals done", "I'd like one of them D4 medicals",
                 "my boss says I need to D4 medical before Friday"):
        utterance = hear(text, catalog=catalog)
        assert utterance.service_ids == ("d4",), text
    assert hear("I'd like one of them D4 medicals", catalog=catalog).has("book")


def test_a_site_named_by_its_name_clipped_the_regions_way() -> None:
    """Where the region table says callers clip place names ("-o", "-ie": Australian English), a clipped word that
    begins one site's name names it, where a site is asked for or cued; never in a region that does not."""
    catalog = Catalog(
        services=(Service("initial", "Initial assessment", 45, 95.0),),
        locations=(Location("north", "Northbridge", "1 Lake St"), Location("kens", "Kensington", "2 High St"),
                   Location("kew", "Kewdale", "3 Main St")),
        practitioners=(Practitioner("roe", "Jane Roe", ("initial",), ("north", "kens", "kew")),),
    )
    for said, site in (("Northo", "north"), ("the Kenso one please", "kens"), ("Northie", "north")):
        assert hear(said, "location", catalog=catalog, region="AU").location_id == site, said
    assert hear("an initial at Northo tomorrow arvo", catalog=catalog, region="AU").location_id == "north"
    assert hear("Northo", "location", catalog=catalog, region="US").location_id is None
    # too short a stem to be sure of; no cue nor question
    assert hear("Keo", "location", catalog=catalog, region="AU").location_id is None
    assert hear("my mate Kenny sent me", catalog=catalog, region="AU").location_id is None


def test_a_service_chosen_by_how_long_it_is() -> None:
    catalog = Catalog(
        services=(Service("m60", "Remedial massage, 60 minutes", 60, 110.0),
                  Service("m30", "Remedial massage, 30 minutes", 30, 70.0),
                  Service("nd", "Naturopath initial consultation", 60, 180.0)),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Jane Roe", ("m60", "m30", "nd"), ("main",)),),
    )
    for said, service in (("just the half hour this time", "m30"), ("the hour massage", "m60"),
                          ("the hour one... the full hour, the massage", "m60"), ("the 30 minute one", "m30")):
        assert hear(said, "service", catalog=catalog).service_ids == (service,), said
    # two services an hour long, and nothing else said to choose between them: asked again
    assert hear("the hour one", "service", catalog=catalog).service_ids == ()
    assert hear("I'll be there in half an hour", catalog=catalog).service_ids == ()


def test_a_service_named_without_its_first_word() -> None:
    """"Naturopathic follow-up" is also "a follow-up", where no other service's name ends so; an alias's words are
    not shortened ("child checkup" is no "checkup")."""
    catalog = Catalog(
        services=(Service("nd", "Naturopathic initial consultation", 90, 225.0),
                  Service("ndf", "Naturopathic follow-up", 45, 120.0),
                  Service("kids", "Kids' cleaning", 45, 95.0, aliases=("child checkup",))),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("nd", "ndf", "kids"), ("main",)),),
    )
    assert hear("she wants to see me back for a follow-up", catalog=catalog).service_ids == ("ndf",)
    assert hear("an initial consultation please", "service", catalog=catalog).service_ids == ("nd",)
    assert hear("she had her checkup last month", catalog=catalog).service_ids == ()
    sports = Catalog(
        services=(Service("sfu", "Sports massage follow-up", 30, 70.0), Service("sm", "Sports massage", 60, 95.0)),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Jane Roe", ("sfu", "sm"), ("main",)),),
    )
    for said in ("just a follow-up this time", "could I book in for a follow up", "the follow-up one"):
        assert hear(said, "service", catalog=sports).service_ids == ("sfu",), said


def test_a_site_named_as_the_closest_is_the_answer_not_a_question() -> None:
    for said in ("the city one, that's closest to me", "North, it's nearest to my work", "the city, closest to home"):
        utterance = hear(said, "location")
        assert utterance.location_id is not None and not utterance.has("address"), said
    assert hear("which one is closest to me?", "location").has("address")


def test_a_service_said_as_the_callers_first_of_it_is_the_first_visit() -> None:
    catalog = Catalog(
        services=(Service("checkup", "Check-up", 30, 60.0, aliases=("exam",)),
                  Service("newpatient", "New patient examination", 45, 90.0, aliases=("first visit",))),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("checkup", "newpatient"), ("main",)),),
    )
    for text in ("I'd like to get registered with you and get a first check-up", "it'll be my first exam with you",
                 "booking our first check-up with you"):
        assert hear(text, catalog=catalog).service_ids == ("newpatient",), text
    for text in ("the first check-up slot you have", "a check-up please"):
        assert hear(text, catalog=catalog).service_ids == ("checkup",), text


def test_a_service_named_as_declared_comes_before_one_named_only_in_part() -> None:
    """Words that are part of one service's name ("family doctor" of "Family doctor visit") said in passing, with
    another service named as the clinic file gives it: the one named as declared is the one asked for."""
    catalog = Catalog(
        services=(Service("visit", "Family doctor visit", 15, 0.0, aliases=("regular appointment",)),
                  Service("physical", "Annual physical", 30, 0.0, aliases=("physical", "physical exam"))),
        locations=(Location("glebe", "Glebe", "1 Bank St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("visit", "physical"), ("glebe",)),),
    )
    for text in ("I'm still on the waitlist for a family doctor, and my job needs me to get a physical done",
                 "we've no family doctor here yet, so I need a physical exam",
                 "my family doctor retired, can I book a physical"):
        assert hear(text, catalog=catalog).service_ids[0] == "physical", text
    assert hear("a family doctor visit please", "service", catalog=catalog).service_ids == ("visit",)


PODIATRY = Catalog(
    services=(Service("general", "General podiatry", 30, 78.0, aliases=("nail care", "check up")),
              Service("biomech", "Biomechanical assessment", 60, 150.0, aliases=("gait analysis",)),
              Service("flu", "Flu shot", 15, 25.0)),
    locations=(Location("bay", "Sandy Bay", "1 Bay Rd", aliases=("the bay",)),
               Location("hill", "Mount Pleasant", "2 Hill St")),
    practitioners=(Practitioner("ng", "Amy Ng", ("general", "biomech", "flu"), ("bay", "hill")),),
)


@pytest.mark.parametrize(("heard", "service"), [
    ("Mailcare", "general"),          # two words run together, the first letter misheard
    ("nailcare please", "general"),
    ("Gateanalysis.", "biomech"),
    ("a flushot", "flu"),
])
def test_a_service_of_several_words_heard_as_one_word_is_that_service(heard, service) -> None:
    assert hear(heard, "service", catalog=PODIATRY).service_ids == (service,)


@pytest.mark.parametrize(("heard", "location"), [("Mountpleasant", "hill"), ("Sandybay", "bay")])
def test_a_site_of_several_words_heard_as_one_word_is_that_site(heard, location) -> None:
    assert hear(heard, "location", catalog=PODIATRY).location_id == location


SUBURBS = Catalog(
    services=PODIATRY.services,
    locations=(Location("kens", "Kensington", "1 High St"), Location("wimb", "Wimbledon", "2 Hill Rd"),
               Location("cross", "Kings Cross", "3 Cross St")),
    practitioners=(Practitioner("ng", "Amy Ng", ("general", "biomech", "flu"), ("kens", "wimb", "cross")),),
)


@pytest.mark.parametrize(("heard", "location"), [
    ("I'll go to Kensing Tun.", "kens"),      # a one-word site split into words, its first part whole
    ("Wimble Dunn please", "wimb"),
    ("the Kensing Tonne one", "kens"),
    ("Kings Cross", "cross"),
])
def test_a_one_word_site_heard_as_several_words_is_that_site(heard, location) -> None:
    assert hear(heard, "location", catalog=SUBURBS).location_id == location


@pytest.mark.parametrize(("heard", "waiting_for"), [
    ("I'm kensing home", "location"),          # the part, then an ordinary word
    ("Kensing.", "location"),                  # the part alone, nothing after it
    ("I'll go to Kensing Tun.", "full_name"),  # no site asked
])
def test_part_of_a_site_name_counts_only_before_a_word_that_is_no_word_where_a_site_is_asked(heard, waiting_for):
    assert hear(heard, waiting_for, catalog=SUBURBS).location_id is None


@pytest.mark.parametrize("said", ["Mailcare", "nailcare please"])
def test_a_run_together_service_counts_only_where_a_service_is_asked(said) -> None:
    assert hear(said, "full_name", catalog=PODIATRY).service_ids == ()
    assert hear("I need healthcare advice", "service", catalog=PODIATRY).service_ids == ()


# a practitioner known by a one-word alias (a first name), as clinic files often give one
CATALOG_ALIASED = Catalog(
    services=(Service("treatment", "Follow-up treatment", 30, 48.0),),
    locations=(Location("city", "City", "12 George St, Sydney"),),
    practitioners=(Practitioner("byrne", "Niamh Byrne", ("treatment",), ("city",), aliases=("Niamh",)),
                   Practitioner("akhtar", "Samira Akhtar", ("treatment",), ("city",), aliases=("Samira",))),
)


@pytest.mark.parametrize(("text", "waiting_for", "practitioner"), [
    ("Niamh.", "confirm", None),                   # a lone name at a read-back: also what "mm-hmm" is written as
    ("Samira", "intent", None),
    ("with Niamh please", "confirm", "byrne"),
    ("can I see Samira instead", "confirm", "akhtar"),
    ("Niamh", "practitioner", "byrne"),           # asked for a practitioner: the name alone answers
])
def test_a_one_word_practitioner_alias_needs_a_cue_like_a_first_name(text, waiting_for, practitioner) -> None:
    assert hear(text, waiting_for, catalog=CATALOG_ALIASED).practitioner_id == practitioner


PHYSIO = Catalog(
    services=(Service("treat", "Follow-up treatment", 30, 48.0, aliases=("follow-up",)),
              Service("assess", "Initial assessment", 45, 62.0)),
    locations=(Location("city", "City", "1 High St"),),
    practitioners=(Practitioner("ng", "Amy Ng", ("treat", "assess"), ("city",)),),
)


@pytest.mark.parametrize("said", ["I need to follow-up treatment, please.", "I'd like to follow up treatment",
                                  "can I get to follow-up treatment"])
def test_a_service_name_of_three_words_after_to_is_the_service_not_a_verb(said) -> None:
    assert hear(said, catalog=PHYSIO).service_ids == ("treat",)


@pytest.mark.parametrize("said", ["I'll follow up later", "I need to follow up", "I want to follow up on it"])
def test_a_service_name_of_two_words_after_to_is_still_a_verb(said) -> None:
    assert hear(said, catalog=PHYSIO).service_ids == ()


@pytest.mark.parametrize("said, location", [
    ("I saw someone up at North Sydney and she said to book a follow-up, but can I do it at the City?", "city"),
    ("North Sydney, or actually the City clinic", "city"),
    ("the City clinic please. North Sydney instead", "north"),
    ("I'd like the City clinic but I was at North Sydney last time", "city"),
])
def test_of_two_sites_said_the_one_turned_to_is_wanted(said, location):
    assert hear(said).location_id == location


@pytest.mark.parametrize("said, practitioner", [
    ("I usually see Raj Shah but I'd like to see Dr Anna Lee", "lee"),
    ("can I see Raj Shah instead of Dr Anna Lee", "shah"),
])
def test_of_two_practitioners_said_the_one_turned_to_is_wanted(said, practitioner):
    assert hear(said).practitioner_id == practitioner


def test_a_services_own_alias_wins_over_a_word_of_another_services_name():
    """"Cleaning" is one service's alias and the last word of another's name ("exam and cleaning"): the alias is
    the service the caller means."""
    catalog = Catalog(
        services=(Service("exam", "New patient exam and cleaning", 60, 185.0, aliases=("new patient exam",)),
                  Service("clean", "Routine cleaning", 45, 125.0, aliases=("cleaning", "hygiene visit"))),
        locations=(Location("main", "Main Street", "1 Main St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("exam", "clean"), ("main",)),),
    )
    for said in ("Hi. Need a cleaning.", "Cleaning.", "I need to get my son in for his cleaning"):
        heard = hear(said, catalog=catalog)
        assert heard.service_ids == ("clean",), said
        assert "book" in [s.name for s in heard.intents], said


def test_a_site_named_with_a_word_shortened():
    catalog = Catalog(
        services=(Service("initial", "Initial podiatry assessment", 45, 95.0), Service("std", "Standard consult", 30, 70.0)),
        locations=(Location("vp", "Victoria Park", "1 Albany Hwy"), Location("north", "North Beach", "2 Beach Rd")),
        practitioners=(Practitioner("roe", "Jane Roe", ("initial", "std"), ("vp", "north")),),
    )
    for said, site in (("Vic Park.", "vp"), ("I'll go to Vic Park please", "vp"), ("North Bch", "north")):
        assert hear(said, "location", catalog=catalog).location_id == site, said
    for said in ("the first one, for new people", "whatever the first-time one is",
                 "I guess the new patient thing? Whatever I need for the first time", "whatever you do for first timers",
                 "the new patient one I suppose", "the new patient one, the standard consult thing"):
        assert hear(said, "service", catalog=catalog).service_ids[:1] == ("initial",), said


def test_whom_a_service_is_for_is_not_the_service_on_its_own() -> None:
    catalog = Catalog(
        services=(Service("clean", "Cleaning", 30, 95.0),
                  Service("kids", "Kids' cleaning", 30, 80.0, aliases=("kids checkup",))),
        locations=(Location("city", "City", "1 Doe St"),),
        practitioners=(Practitioner("roe", "Jane Roe", ("clean", "kids"), ("city",)),),
    )
    assert hear("my husband can watch the kids then", "time_preference", catalog=catalog).service_ids == ()
    assert hear("a kids' cleaning for my son", "service", catalog=catalog).service_ids == ("kids",)


def test_a_service_for_children_of_the_same_kind_is_found_for_each_service_not_for_children() -> None:
    from appliance.understanding.catalog_match import catalog_index

    def counterparts(*services: Service) -> dict[str, str]:
        catalog = Catalog(services=services, locations=(Location("main", "Main", "1 Main St"),),
                          practitioners=(Practitioner("roe", "Dr Jane Roe", tuple(s.id for s in services),
                                                      ("main",)),))
        return catalog_index(catalog).for_children

    assert counterparts(Service("checkup", "Check-up and clean", 45, 220.0, aliases=("check-up",)),
                        Service("kids", "Children's check-up", 30, 130.0),
                        Service("whitening", "Teeth whitening", 60, 400.0)) == {"checkup": "kids"}
    assert counterparts(Service("physio", "Physio assessment", 45, 90.0),
                        Service("kidsphysio", "Paediatric physio", 30, 70.0)) == {"physio": "kidsphysio"}
    # two of them for children, of one kind: which is the caller's to say
    assert counterparts(Service("massage", "Massage", 60, 90.0), Service("k1", "Kids massage", 30, 50.0),
                        Service("k2", "Junior massage", 30, 50.0)) == {}


@pytest.mark.parametrize("address, street", [
    ("14 Doe Street Lower, Springfield", "doe street"), ("Upper Roe Road, Springfield", "roe road"),
    ("Unit 2, 40 Doe St West, Springfield", "doe street"), ("12 Roe St, Springfield", "roe street"),
])
def test_a_site_is_named_by_its_street_without_the_part_of_it_or_the_unit(address, street) -> None:
    catalog = Catalog(
        services=(Service("checkup", "Check-up", 30, 60.0),),
        locations=(Location("main", "Main", address), Location("other", "Other", "1 Other Lane, Elsewhere")),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("checkup",), ("main", "other")),),
    )
    assert hear(f"the one on {street}", "location", catalog=catalog).location_id == "main"


@pytest.mark.parametrize("said", [
    "my friend says Raj is great, could I get a massage with him?",
    "my flatmate reckons Raj is amazing, I've never been in before, can I book in with him?",
    "Raj looked after my husband, could I see him on Friday?",
    "he really liked Raj last time, so if we could get him that'd be great",
])
def test_a_practitioner_told_of_by_first_name_then_asked_for_as_him_or_her_is_wanted(said) -> None:
    assert hear(said).practitioner_id == "shah"


@pytest.mark.parametrize("said", ["my friend says Raj is great", "Raj looked after my husband, is he any good?"])
def test_a_practitioner_only_told_of_is_not_wanted(said) -> None:
    assert hear(said).practitioner_id is None


def _sites(*names: str) -> Catalog:
    locations = tuple(Location(f"s{k}", name, f"{k} Doe St, Springfield") for k, name in enumerate(names))
    return Catalog(services=(Service("checkup", "Check-up", 30, 60.0),), locations=locations,
                   practitioners=(Practitioner("roe", "Dr Jane Roe", ("checkup",), tuple(l.id for l in locations)),))


@pytest.mark.parametrize("names, said, region, site", [
    (("Roeville", "Springfield Bay"), "the Bay one please, I work down by the water", "GB", "s1"),
    # the one in town, the way the region says it (config/regions.yaml `town_centre`)
    (("Roeville", "Springfield City"), "in town, I get the bus in", "IE", "s1"),
    (("Roeville", "Springfield City Center"), "the one downtown", "US", "s1"),
    (("Central", "Roeville"), "into town is easier", "GB", "s0"),
    (("Roeville", "Springfield CBD"), "the CBD one, near work", "AU", "s1"),
])
def test_a_site_named_by_its_last_word_or_as_the_one_in_town(names, said, region, site) -> None:
    assert hear(said, "location", catalog=_sites(*names), region=region).location_id == site


@pytest.mark.parametrize("names, said", [
    (("North Clinic", "South Clinic"), "the clinic one"),              # a word every site has
    (("Springfield City", "Roeville City"), "in town please"),          # two sites in town: which is theirs to say
])
def test_no_site_from_a_word_or_a_town_every_site_shares(names, said) -> None:
    assert hear(said, "location", catalog=_sites(*names)).location_id is None


@pytest.mark.parametrize("said", [
    "I haven't had a check-up in two years, which is a bit embarrassing. So yeah, I'd be a new patient.",
    "I need a check-up, I'm a new patient",
    "a check-up please, it'd be my first visit, I've never been to you before",
])
def test_a_new_patient_naming_another_service_too_gets_the_first_visit_service_first(said) -> None:
    catalog = Catalog(
        services=(Service("checkup", "Check-up", 30, 60.0, aliases=("exam",)),
                  Service("newpatient", "New patient examination", 45, 90.0, aliases=("first visit", "new patient"))),
        locations=(Location("main", "Main", "1 Main St"),),
        practitioners=(Practitioner("roe", "Dr Jane Roe", ("checkup", "newpatient"), ("main",)),),
    )
    assert hear(said, catalog=catalog).service_ids[:1] == ("newpatient",), said
    assert hear("I need a check-up, I've been before", catalog=catalog).service_ids[:1] == ("checkup",)
