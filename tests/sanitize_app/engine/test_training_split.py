"""The train / held-out split: by document, deterministic, TAB's dataset_type respected."""

import pytest

from sanitize_app.engine.training import TrainingError, kfold_documents, split_documents


def docs(*specs):
    """Documents from (doc_id, dataset_type) pairs (dataset_type None: absent)."""
    made = []
    for doc_id, kind in specs:
        document = {"doc_id": doc_id, "text": f"text of {doc_id}", "annotations": {}}
        if kind is not None:
            document["dataset_type"] = kind
        made.append(document)
    return made


def ids(documents):
    return [d["doc_id"] for d in documents]


def test_six_documents_without_dataset_type_split_four_to_two_deterministically():
    documents = docs(*[(name, None) for name in "abcdef"])
    train, heldout = split_documents(documents, seed=13)
    assert len(train) == 4 and len(heldout) == 2
    assert set(ids(train)) | set(ids(heldout)) == set("abcdef")
    assert not set(ids(train)) & set(ids(heldout))
    # The same split whatever the input order; each side keeps the input order.
    again_train, again_heldout = split_documents(list(reversed(documents)), seed=13)
    assert set(ids(again_train)) == set(ids(train)) and set(ids(again_heldout)) == set(ids(heldout))
    assert ids(train) == sorted(ids(train))


def test_the_seed_decides_the_split():
    documents = docs(*[(f"d{i:02}", None) for i in range(30)])
    splits = {tuple(sorted(ids(split_documents(documents, seed=seed)[1]))) for seed in range(5)}
    assert len(splits) > 1
    assert split_documents(documents, seed=3) == split_documents(documents, seed=3)


def test_dataset_type_is_respected_when_it_splits_the_collection():
    documents = docs(("t1", "train"), ("t2", "train"), ("v1", "dev"), ("x1", "test"), ("n1", None), ("n2", None))
    train, heldout = split_documents(documents, seed=13, train_share=0.5)
    assert {"t1", "t2"} <= set(ids(train))
    assert {"v1", "x1"} <= set(ids(heldout))
    # The two documents without a dataset_type are shuffled: one on each side.
    assert len({"n1", "n2"} & set(ids(train))) == 1 and len({"n1", "n2"} & set(ids(heldout))) == 1


def test_a_collection_all_of_one_dataset_type_is_shuffled(sample_documents):
    assert {d["dataset_type"] for d in sample_documents} == {"dev"}
    train, heldout = split_documents(sample_documents, seed=13)
    assert (len(train), len(heldout)) == (27, 14)
    assert not set(ids(train)) & set(ids(heldout))


def test_every_layer_of_a_document_stays_on_one_side():
    # One document given twice (two annotators' files), among others.
    documents = docs(*[(name, None) for name in "abcdefgh"]) + docs(("c", None), ("f", None))
    train, heldout = split_documents(documents, seed=1)
    assert not set(ids(train)) & set(ids(heldout))
    assert ids(train).count("c") + ids(heldout).count("c") == 2


def test_one_document_trains_and_nothing_is_held_out():
    assert split_documents(docs(("only", None))) == (docs(("only", None)), [])


@pytest.mark.parametrize("share", [0, 1, 1.5, -0.2])
def test_a_train_share_outside_zero_one_is_refused(share):
    with pytest.raises(TrainingError, match="train_share"):
        split_documents(docs(("a", None), ("b", None)), train_share=share)


def test_five_folds_of_the_41_dev_documents_hold_each_document_out_exactly_once(sample_documents):
    folds = kfold_documents(sample_documents, k=5, seed=13)
    held = [ids(heldout) for _, heldout in folds]
    # 41 = 5 * 8 + 1: one fold of 9 documents, four of 8.
    assert sorted(len(h) for h in held) == [8, 8, 8, 8, 9]
    assert sorted(i for h in held for i in h) == sorted(ids(sample_documents))
    for train, heldout in folds:
        assert not set(ids(train)) & set(ids(heldout))
        assert len(train) + len(heldout) == 41


def test_folds_depend_on_the_seed_not_on_the_input_order(sample_documents):
    forward = kfold_documents(sample_documents, k=5, seed=13)
    backward = kfold_documents(list(reversed(sample_documents)), k=5, seed=13)
    assert [set(ids(h)) for _, h in forward] == [set(ids(h)) for _, h in backward]
    assert [set(ids(h)) for _, h in kfold_documents(sample_documents, k=5, seed=14)] != [
        set(ids(h)) for _, h in forward
    ]


def test_layers_of_one_document_share_a_fold():
    documents = docs(*[(name, None) for name in "abcdef"]) + docs(("c", None))
    for train, heldout in kfold_documents(documents, k=3, seed=1):
        assert not set(ids(train)) & set(ids(heldout))
        if "c" in ids(heldout):
            assert ids(heldout).count("c") == 2


@pytest.mark.parametrize("k", [1, 8])
def test_k_outside_two_to_the_number_of_documents_is_refused(k):
    with pytest.raises(TrainingError, match="k-fold"):
        kfold_documents(docs(*[(name, None) for name in "abcdefg"]), k=k)
