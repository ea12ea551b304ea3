"""Every file of the malformed corpus (``generate.py``) is accepted or refused as its case
says; a refusal names the culprit and leaves the database as it was; the worst files of
up to 10 MB are read in bounded memory."""

import json
import resource
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model

from annotation.corpus_io.errors import TabImportError
from annotation.models import (
    AnnotationLayer,
    AuditEvent,
    CorpusMembership,
    Document,
    Entity,
    Mention,
    MentionLink,
)
from annotation.services.corpus_import import import_tab

from .edits import B_ID, HEAVY_BYTES, REPO
from .generate import CASES, HEAVY, write_case

MODELS = (Document, AnnotationLayer, Entity, Mention, MentionLink, CorpusMembership, AuditEvent, get_user_model())
GiB = 1024**3


def counts() -> dict:
    return {model.__name__: model.objects.count() for model in MODELS}


def test_the_corpus_has_at_least_sixty_files_of_each_kind_named_once():
    names = [case.name for case in CASES + HEAVY]
    assert len(names) == len(set(names))
    assert len(CASES) >= 60
    assert sum(case.refused is None for case in CASES) >= 15
    assert sum(case.refused is not None for case in CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_file_is_accepted_or_refused_naming_the_culprit_and_storing_nothing(case, corpus, tmp_path):
    path = write_case(case, tmp_path)
    before = counts()
    with path.open("rb") as stream:
        if case.refused is None:
            summary = import_tab(stream, corpus, actor=None)
            after = counts()
            assert summary.documents == case.documents
            assert after["Document"] - before["Document"] == case.documents
            assert after["User"] - before["User"] == 1 + case.accounts  # annotator1, and any renamed one
            return
        with pytest.raises(TabImportError) as caught:
            import_tab(stream, corpus, actor=None)
    message = str(caught.value)
    for fragment in case.refused:
        assert fragment in message, message
    assert len(message) < 3000, "a refusal quotes the file's values shortened"
    assert counts() == before


def test_escaped_characters_are_stored_as_the_characters_they_stand_for(corpus, tmp_path, pick):
    by_name = {case.name: case for case in CASES}
    original = pick(B_ID)[0]["text"]
    with write_case(by_name["ascii_escapes_and_surrogate_pair"], tmp_path).open("rb") as stream:
        import_tab(stream, corpus, actor=None)
    assert Document.objects.get(doc_id=B_ID).text == original + " \U0001f600 \u00e9"


def test_a_backslash_before_u_d800_is_text_not_an_escape(corpus, tmp_path, pick):
    documents = pick("001-60516")
    documents[0]["task"] = "see C:\\ud800 and \\\\udc00"
    path = tmp_path / "backslash.json"
    path.write_text(json.dumps(documents), encoding="utf-8")
    with path.open("rb") as stream:
        import_tab(stream, corpus, actor=None)
    assert Document.objects.get().task == "see C:\\ud800 and \\\\udc00"


# The importer's reading and checking (``tab_reader`` and ``tab_parser``, everything an
# import does before the database) in a fresh interpreter with a bare Django, so that
# its peak memory is the file's cost, not the test process's.
CHILD = """
import json, sys
import django
from django.conf import settings
settings.configure(INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth"], USE_I18N=False)
django.setup()
from annotation.corpus_io.errors import TabImportError
from annotation.corpus_io.tab_parser import DocumentParser
from annotation.corpus_io.tab_reader import iter_raw_documents
parser, problems, documents = DocumentParser(), [], 0
try:
    with open(sys.argv[1], "rb") as stream:
        for index, raw in enumerate(iter_raw_documents(stream)):
            record, found = parser.parse(raw, index)
            problems += found
            documents += record is not None
except TabImportError as exc:
    problems += exc.problems
# VmHWM, not ru_maxrss: the latter survives fork and exec, so it would report the test
# process's own size (spaCy, the encoder, the place data) rather than this file's cost.
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"documents": documents, "problems": [str(p) for p in problems], "peak": peak}))
"""


def _address_space_of_one_gib():
    """The watchdog: past 1 GiB the child fails with MemoryError instead of growing."""
    resource.setrlimit(resource.RLIMIT_AS, (GiB, GiB))


@pytest.mark.parametrize("case", HEAVY, ids=lambda case: case.name)
def test_the_worst_files_up_to_10_mb_are_read_in_bounded_memory(case, tmp_path):
    path = write_case(case, tmp_path)
    assert path.stat().st_size <= 10_000_000 and HEAVY_BYTES <= 10_000_000
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_address_space_of_one_gib,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["peak"] < GiB
    if case.refused is None:
        assert result["problems"] == [] and result["documents"] == case.documents
    else:
        message = "\n".join(result["problems"])
        for fragment in case.refused:
            assert fragment in message, message
