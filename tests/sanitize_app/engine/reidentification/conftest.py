"""Shared by the re-identification tests: one spaCy pretreatment per session (loading it
is the slow part), the synthetic five-person population pretreated once, and a tf-idf
attacker fitted on it."""

import pytest

from sanitize_app.engine.reidentification.attack import fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.pretreatment import Pretreatment
from sanitize_app.engine.reidentification.types import BackgroundText, ProtectedText
from tests.support import five_people


@pytest.fixture(scope="session")
def pretreatment():
    return Pretreatment()


@pytest.fixture(scope="session")
def five_people_background(pretreatment) -> list[BackgroundText]:
    pretreated = pretreatment.background(person["text"] for person in five_people.BACKGROUND)
    return [
        BackgroundText(person["name"], tuple(words), tuple(augmented))
        for person, (words, augmented) in zip(five_people.BACKGROUND, pretreated, strict=True)
    ]


@pytest.fixture(scope="session")
def five_people_protected() -> list[ProtectedText]:
    return [ProtectedText(**document) for document in five_people.PROTECTED]


@pytest.fixture(scope="session")
def five_people_tfidf(five_people_background):
    attacker = build_attacker("tfidf-svc")
    fit_attacker(attacker, five_people_background)
    return attacker


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models: one thread is as fast, and does not stall when the cores are shared
    (measured: a tiny BERT's fine-tuning 2.5 s instead of 20 s on two busy cores)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
