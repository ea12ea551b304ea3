"""Tiny transformer models built here from a config (random weights, a WordPiece
vocabulary trained on three real documents): they exercise the real code paths of the
indicators without any download."""

import pytest


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, sample_documents):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertForMaskedLM, BertForTokenClassification, BertTokenizerFast

    torch.manual_seed(0)
    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train_from_iterator([d["text"] for d in sample_documents[:3]], vocab_size=600, show_progress=False)
    tokenizer = BertTokenizerFast(tokenizer_object=wordpiece._tokenizer)
    config = dict(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=300,
    )
    mlm_dir = tmp_path_factory.mktemp("tiny-mlm")
    BertForMaskedLM(BertConfig(**config)).save_pretrained(mlm_dir)
    tokenizer.save_pretrained(mlm_dir)
    tagger_dir = tmp_path_factory.mktemp("tiny-tagger")
    BertForTokenClassification(
        BertConfig(**config, num_labels=2, id2label={0: "NO_MASK", 1: "MASK"}, label2id={"NO_MASK": 0, "MASK": 1})
    ).save_pretrained(tagger_dir)
    tokenizer.save_pretrained(tagger_dir)
    return {"mlm": str(mlm_dir), "tagger": str(tagger_dir)}
