"""What rules decide for certain, whatever the risk indicators and the trained
classifiers say (privacy first):

- direct identifiers, always masked as DIRECT: the protected person's name, and
  application numbers (they identify the case and so its applicant);
- case references, always masked (QUASI unless direct): numbers of applications, cases
  or files announced as such, alone or in a list ("joined to applications nos.
  58372/00, ..."). The annotators mask them (440 of the 449 such mentions of one real
  judgment, QUASI), and a classifier trained on other documents left 44 of them readable."""

from .context import EntityView
from .recognizer.direct import is_application_number, is_reference_number

CASE_REFERENCE = "rules: a case or application number announced as such is always masked"


def is_direct_identifier(entity: EntityView, text: str) -> bool:
    if entity.protected:
        return True
    if entity.label != "CODE":
        return False
    # Any mention: a NER may have grouped a bare later mention with the announced one.
    return any(is_application_number(text, start, end) for start, end in entity.mentions)


def is_case_reference(entity: EntityView, text: str) -> bool:
    return entity.label == "CODE" and any(is_reference_number(text, start, end) for start, end in entity.mentions)
