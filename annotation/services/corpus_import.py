"""Importing corpora: all or nothing.

The whole file is read inside one transaction while it streams through the parser;
the first problem stops writing but parsing goes on, so one run reports many problems
(up to ``MAX_PROBLEMS``). Any problem rolls everything back."""

from collections.abc import Callable, Iterable
from typing import BinaryIO

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, transaction
from django.db.models import Max

from ..corpus_io.builder import CorpusBuilder, ImportSummary
from ..corpus_io.errors import Problem, TabImportError
from ..corpus_io.records import DocumentRecord
from ..corpus_io.tab_parser import DocumentParser
from ..corpus_io.tab_reader import iter_raw_documents
from ..models import Corpus
from .audit import record_event

MAX_PROBLEMS = 50
Progress = Callable[[int], None]


def _next_position(corpus: Corpus) -> int:
    last = corpus.documents.aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def _consume(parsed, builder: CorpusBuilder, progress: Progress | None) -> tuple[list[Problem], bool]:
    """Feed valid records to the builder until the first problem; keep parsing to
    report more. Returns the problems and whether the list was cut short."""
    problems: list[Problem] = []
    try:
        for count, (record, found) in enumerate(parsed, start=1):
            problems += found
            if len(problems) >= MAX_PROBLEMS:
                return problems[:MAX_PROBLEMS], True
            if record is not None and not problems:
                builder.add(record)
            if progress:
                progress(count)
    except TabImportError as exc:  # the reader stopped (malformed JSON, bad bytes, a limit): nothing more to parse
        problems += exc.problems
    return problems, False


def _store(
    corpus: Corpus,
    parsed: Iterable[tuple[DocumentRecord | None, list[Problem]]],
    *,
    actor: AbstractBaseUser | None,
    source: str,
    action: str,
    progress: Progress | None,
) -> ImportSummary:
    try:
        with transaction.atomic():
            builder = CorpusBuilder(corpus, first_position=_next_position(corpus))
            problems, truncated = _consume(parsed, builder, progress)
            if problems:
                raise TabImportError(problems, truncated=truncated)
            builder.flush()
            if builder.summary.documents == 0:
                raise TabImportError([Problem("the file contains no documents")])
            record_event(action, actor=actor, corpus=corpus, target=source, changes=builder.summary.as_dict())
    except DatabaseError as exc:
        # Validation mirrors every database rule; reaching this means a concurrent
        # change (e.g. the same doc_id imported at the same moment).
        raise TabImportError([Problem(f"the database refused the import: {exc}")]) from None
    return builder.summary


def import_tab(
    stream: BinaryIO,
    corpus: Corpus,
    *,
    actor: AbstractBaseUser | None,
    source: str = "",
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a TAB JSON file (a binary stream) into ``corpus``; atomic."""
    parser = DocumentParser(existing_doc_ids=set(corpus.documents.values_list("doc_id", flat=True)))
    parsed = (parser.parse(raw, index) for index, raw in enumerate(iter_raw_documents(stream)))
    return _store(corpus, parsed, actor=actor, source=source, action="corpus.import_tab", progress=progress)


def import_records(
    records: Iterable[tuple[DocumentRecord | None, list[Problem]]],
    corpus: Corpus,
    *,
    actor: AbstractBaseUser | None,
    source: str,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import already parsed records (e.g. plain-text documents); atomic."""
    return _store(corpus, records, actor=actor, source=source, action="corpus.import_text", progress=progress)
