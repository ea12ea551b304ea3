"""Shared bits of the management commands: finding a corpus, reporting progress."""

import sys

from django.core.management.base import CommandError

from annotation.models import Corpus


def get_corpus(name: str) -> Corpus:
    try:
        return Corpus.objects.get(name=name)
    except Corpus.DoesNotExist:
        known = ", ".join(Corpus.objects.values_list("name", flat=True)[:20]) or "none yet"
        raise CommandError(f"There is no corpus named {name!r} (known corpora: {known}).") from None


class ProgressPrinter:
    """A one-line counter on stderr when it is a terminal, a line every ``every`` items
    otherwise (logs stay readable)."""

    def __init__(self, label: str, total: int | None = None, every: int = 200):
        self.label, self.total, self.every = label, total, every
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        of = f"/{self.total}" if self.total else ""
        if self.tty:
            sys.stderr.write(f"\r{self.label}: {done}{of}")
            sys.stderr.flush()
        elif done % self.every == 0:
            sys.stderr.write(f"{self.label}: {done}{of}\n")

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\n")
