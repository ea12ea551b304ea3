"""Shared bits of the management commands: finding a corpus, reporting progress."""

from django.core.management.base import CommandError
from tqdm import tqdm

from annotation.models import Corpus


def get_corpus(name: str) -> Corpus:
    try:
        return Corpus.objects.get(name=name)
    except Corpus.DoesNotExist:
        known = ", ".join(Corpus.objects.values_list("name", flat=True)[:20]) or "none yet"
        raise CommandError(f"There is no corpus named {name!r} (known corpora: {known}).") from None


class CommandStream:
    """A command's stderr as tqdm's file: tqdm redraws partial lines, which a command's
    ``OutputWrapper`` would end with a newline each."""

    def __init__(self, wrapper):
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, ending="")

    def flush(self) -> None:
        self.wrapper.flush()

    def isatty(self) -> bool:
        return self.wrapper.isatty()


class ProgressBar(tqdm):
    """The progress bar of every command: tqdm on the command's stderr. On a terminal it
    redraws in place; elsewhere (a log) it writes at most every ``LOG_INTERVAL_S``, then
    its final state when closed. ``to(done)`` moves it to a count read from the database
    (a job's progress), where tqdm's ``update`` adds to it."""

    LOG_INTERVAL_S = 10.0

    def __init__(self, stream, desc: str, total: int | None = None, *, unit: str = "doc"):
        file = CommandStream(stream) if hasattr(stream, "style_func") else stream
        tty = bool(getattr(file, "isatty", lambda: False)())
        super().__init__(
            total=total, desc=desc, unit=unit, file=file, ascii=True, mininterval=0.1 if tty else self.LOG_INTERVAL_S
        )

    def to(self, done: int, stage: str = "") -> None:
        if stage:
            self.set_postfix_str(stage, refresh=False)
        self.update(done - self.n)
