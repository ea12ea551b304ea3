"""Import errors that say where the problem is: file position, document, annotator,
mention and field."""

import reprlib
from dataclasses import dataclass

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = _SHORT.maxset = 4
_SHORT.maxlevel = 2


def quote(value) -> str:
    """A value from the file as a message may show it: its repr, shortened (a value
    can be megabytes long, deeply nested, or hold markup and control characters)."""
    return _SHORT.repr(value)


@dataclass(frozen=True)
class Problem:
    message: str
    document: str | None = None  # doc_id, or "item N" when the doc_id is unusable
    annotator: str | None = None
    mention: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = []
        if self.document:
            where.append(f"document {self.document}")
        if self.annotator:
            where.append(f"annotator {self.annotator}")
        if self.mention:
            where.append(f"mention {self.mention}")
        if self.field:
            where.append(f"field {self.field}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class TabImportError(Exception):
    """The file was rejected; nothing of it was stored. ``problems`` lists what is wrong
    (up to a limit), each naming the document, mention and field."""

    def __init__(self, problems: list[Problem], *, truncated: bool = False):
        self.problems = problems
        self.truncated = truncated
        lines = [str(p) for p in problems]
        if truncated:
            lines.append("(more problems not shown)")
        super().__init__(
            f"Import rejected, nothing was stored ({len(problems)}{'+' if truncated else ''} problem"
            f"{'s' if len(problems) != 1 or truncated else ''}):\n  " + "\n  ".join(lines)
        )
