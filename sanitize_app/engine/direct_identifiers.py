"""Which recognised entities are direct identifiers, decided by rules that no trained
model can override: the protected person's name, and application numbers (they
identify the case and so its applicant).

Such an entity is always masked (DIRECT) whatever the risk indicators and the trained
classifiers say: privacy first."""

from .context import EntityView
from .recognizer.direct import is_application_number


def is_direct_identifier(entity: EntityView, text: str) -> bool:
    if entity.protected:
        return True
    if entity.label != "CODE":
        return False
    # Any mention: a NER may have grouped a bare later mention with the announced one.
    return any(is_application_number(text, start, end) for start, end in entity.mentions)
