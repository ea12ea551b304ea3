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


class ProgressBar:
    """``label [#####.....] 12/41 (29%) 3.1/s, 9 s left`` redrawn in place on a terminal;
    a line per tenth of the way otherwise."""

    WIDTH = 30

    def __init__(self, label: str, total: int, stream=None):
        import time

        self.label, self.total = label, max(total, 1)
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        # A command's OutputWrapper ends every write with a newline unless told not to.
        self._write = (
            (lambda text: stream.write(text, ending="")) if hasattr(stream, "style_func") else self.stream.write
        )
        self.clock = time.monotonic
        self.started = self.clock()
        self.last_tenth = -1

    def line(self, done: int, extra: str = "") -> str:
        fraction = min(done / self.total, 1.0)
        filled = int(self.WIDTH * fraction)
        elapsed = self.clock() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        left = f", {int((self.total - done) / rate)} s left" if rate and done < self.total else ""
        bar = "#" * filled + "." * (self.WIDTH - filled)
        return f"{self.label} [{bar}] {done}/{self.total} ({fraction:.0%}) {rate:.1f}/s{left}{extra}"

    def update(self, done: int, extra: str = "") -> None:
        if self.tty:
            self._write("\r" + self.line(done, extra).ljust(100))
            self.stream.flush()
            return
        tenth = int(10 * done / self.total)
        if tenth != self.last_tenth:
            self.last_tenth = tenth
            self._write(self.line(done, extra) + "\n")

    def close(self) -> None:
        if self.tty:
            self._write("\n")
