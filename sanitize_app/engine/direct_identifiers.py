"""Which recognised entities are direct identifiers, decided by rules that no trained
model can override: the protected person's name, and application numbers (they
identify the case and so its applicant).

Such an entity is always masked (DIRECT) whatever the risk indicators and the trained
classifiers say: privacy first."""

import re

from .context import EntityView

_APPLICATION_NUMBER = re.compile(r"^\d{1,6}/\d{2,4}$")


def is_direct_identifier(entity: EntityView, text: str) -> bool:
    if entity.protected:
        return True
    if entity.label != "CODE":
        return False
    first = entity.first_text(text)
    before = text[max(0, entity.mentions[0][0] - 40) : entity.mentions[0][0]].lower()
    return bool(_APPLICATION_NUMBER.match(first)) and ("application" in before or "no." in before)
