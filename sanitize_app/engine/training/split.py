"""Splitting documents into a training part and a held-out part, by document.

All layers of one document (one per annotator, several views of the same text) stay on
the same side, and so do repeated entries of one ``doc_id``. TAB's ``dataset_type`` is
respected when it actually splits the collection, that is when some documents say
"train" and others "dev" or "test": then "train" documents train and "dev"/"test" ones
are held out, and only documents without one of these values are shuffled. When every
document has the same value (the 41-document dev sample is all "dev") the field says
nothing about a split and every document is shuffled.

The shuffle is seeded and independent of the input order (documents are sorted by
``doc_id`` first): the same documents and seed always give the same split."""

import random

from .result import TrainingError

TRAIN_TYPES = frozenset({"train"})
HELDOUT_TYPES = frozenset({"dev", "test"})


def _shuffled_split(doc_ids: list[str], seed: int, train_share: float) -> tuple[set[str], set[str]]:
    ordered = sorted(doc_ids)
    random.Random(seed).shuffle(ordered)
    if len(ordered) < 2:
        return set(ordered), set()
    count = min(len(ordered) - 1, max(1, round(len(ordered) * train_share)))
    return set(ordered[:count]), set(ordered[count:])


def split_documents(
    documents: list[dict], *, seed: int = 13, train_share: float = 2 / 3
) -> tuple[list[dict], list[dict]]:
    """(train, held-out), each in the input order. With at least two documents to
    shuffle, both sides of the shuffle get at least one."""
    if not 0 < train_share < 1:
        raise TrainingError(f"train_share must be between 0 and 1 (exclusive), not {train_share}")
    types: dict[str, set[str]] = {}
    for document in documents:
        types.setdefault(str(document["doc_id"]), set()).add(str(document.get("dataset_type") or "").lower())
    declared = {doc_id: next(iter(kinds)) for doc_id, kinds in types.items() if len(kinds) == 1}
    values = set(declared.values())
    respected = bool(values & TRAIN_TYPES) and bool(values & HELDOUT_TYPES)
    train_ids: set[str] = set()
    heldout_ids: set[str] = set()
    free = []
    for doc_id in types:
        kind = declared.get(doc_id, "")
        if respected and kind in TRAIN_TYPES:
            train_ids.add(doc_id)
        elif respected and kind in HELDOUT_TYPES:
            heldout_ids.add(doc_id)
        else:
            free.append(doc_id)
    shuffled_train, shuffled_heldout = _shuffled_split(free, seed, train_share)
    train_ids |= shuffled_train
    heldout_ids |= shuffled_heldout
    train = [d for d in documents if str(d["doc_id"]) in train_ids]
    heldout = [d for d in documents if str(d["doc_id"]) in heldout_ids]
    return train, heldout


def kfold_documents(documents: list[dict], *, k: int = 5, seed: int = 13) -> list[tuple[list[dict], list[dict]]]:
    """k (train, held-out) pairs by document: the ``doc_id``s, sorted then shuffled with
    ``seed``, are dealt round-robin into k folds of sizes differing by at most one; each
    fold is held out once. Every layer of a document stays on one side."""
    ids = sorted({str(document["doc_id"]) for document in documents})
    if not 2 <= k <= len(ids):
        raise TrainingError(f"k-fold cross-validation needs 2 <= k <= {len(ids)} documents, not k={k}")
    random.Random(seed).shuffle(ids)
    folds = [set(ids[i::k]) for i in range(k)]
    return [
        ([d for d in documents if str(d["doc_id"]) not in fold], [d for d in documents if str(d["doc_id"]) in fold])
        for fold in folds
    ]
