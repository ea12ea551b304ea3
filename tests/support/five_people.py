"""A synthetic population of five people for re-identification tests, with a known answer.

Each background text is about one person and uses words no other background uses (their
town, trade, club, pet, instrument). A protected text is about one of them:

- ``ada``, ``bruno`` and ``chidi`` keep their distinctive words: an attacker trained on
  the background names them first (rank 1);
- ``dora``'s text has every distinctive word of hers masked by a type label, and it tells
  of a visit to Bruno's clock tower in Lindenfels: Bruno's words, none of hers, so Bruno
  is named first and she is not (rank > 1);
- ``emil``'s text mentions Chidi's distinctive words (a quarrel with a neighbour) as well
  as his own, but twice as many of his own.

So a TF-IDF attacker re-identifies 4 of the 5 protected documents: TRIR = 4/5 = 0.8, and the
chance baseline is 1/5. ``MASKABLE`` lists, per protected text, the words whose masking
should push its person down the ranking (for attack-guided masking)."""

BACKGROUND = [
    {
        "name": "Ada Quist",
        "text": (
            "Ada Quist grew up in Harrowgate, a fishing town on the northern coast. She trained as a glassblower "
            "and opened a glassblowing workshop by the Harrowgate harbour. Quist plays the bassoon in the "
            "Harrowgate Wind Band and keeps a tortoise called Pebble. Her glassblowing won the coastal crafts "
            "prize twice. She rows with the Harrowgate Rowing Club every Sunday."
        ),
    },
    {
        "name": "Bruno Velt",
        "text": (
            "Bruno Velt was born in Lindenfels, a mountain village known for its cheese. He worked as a "
            "clockmaker and repaired the Lindenfels tower clock. Velt plays the accordion at village weddings "
            "and breeds carrier pigeons. His clockmaking shop on the Lindenfels square sells cuckoo clocks. "
            "He climbs with the Lindenfels Alpine Club each summer."
        ),
    },
    {
        "name": "Chidi Okafor",
        "text": (
            "Chidi Okafor lives in Marrowby, a river town famous for its orchards. He is a beekeeper and sells "
            "Marrowby honey at the orchard market. Okafor plays the saxophone in a jazz trio and owns a "
            "greyhound named Comet. His beekeeping cooperative supplies honey to Marrowby bakeries. He "
            "referees for the Marrowby Cricket Club."
        ),
    },
    {
        "name": "Dora Lindqvist",
        "text": (
            "Dora Lindqvist comes from Saltmere, an island harbour with a lighthouse. She works as a "
            "cartographer and drew the Saltmere sea charts. Lindqvist plays the harp and keeps a parrot called "
            "Juno. Her cartography studio maps the Saltmere reefs. She sails with the Saltmere Yacht Club in "
            "the autumn regatta."
        ),
    },
    {
        "name": "Emil Straka",
        "text": (
            "Emil Straka is from Pellworth, a railway town on the plains. He is a locksmith with a "
            "locksmithing stall at the Pellworth station. Straka plays the trombone in the Pellworth brass "
            "band and keeps a ferret named Zorro. His locksmithing apprentices come from Pellworth schools. "
            "He bowls with the Pellworth Bowling Club."
        ),
    },
]

PROTECTED = [
    {
        "doc_id": "doc-ada",
        "person": "Ada Quist",
        "text": "The applicant, a glassblower from Harrowgate, played the bassoon and rowed on Sundays.",
    },
    {
        "doc_id": "doc-bruno",
        "person": "Bruno Velt",
        "text": "The applicant repaired the tower clock of Lindenfels and played the accordion at weddings.",
    },
    {
        "doc_id": "doc-chidi",
        "person": "Chidi Okafor",
        "text": "The applicant, a beekeeper, sold honey at the orchard market of Marrowby.",
    },
    {
        "doc_id": "doc-dora",
        "person": "Dora Lindqvist",
        "text": (
            "The applicant, a OCCUPATION from LOC, played the MISC and kept a MISC; "
            "she once visited the tower clock of Lindenfels."
        ),
    },
    {
        "doc_id": "doc-emil",
        "person": "Emil Straka",
        "text": (
            "The applicant, a locksmith from Pellworth who plays the trombone and keeps a ferret, "
            "quarrelled with a beekeeper from Marrowby."
        ),
    },
]

# TRIR of an attacker that learns the background's distinctive words (see the docstring).
EXPECTED_TRIR = 4 / 5
EXPECTED_RE_IDENTIFIED = {"doc-ada", "doc-bruno", "doc-chidi", "doc-emil"}

# Words of each re-identified text whose masking removes what points at its person.
MASKABLE = {
    "doc-ada": ["glassblower", "Harrowgate", "bassoon"],
    "doc-bruno": ["clock", "Lindenfels", "accordion"],
    "doc-chidi": ["beekeeper", "honey", "orchard", "Marrowby"],
    "doc-emil": ["locksmith", "Pellworth", "trombone", "ferret"],
}
