"""The multi-host tests' corpora, as TAB documents (no Django import)."""

# A made-up organisation: the rules read it as a person's name (two capitalised words),
# never as an organisation; only a recognizer trained on the corpus below tags it ORG.
ORG = "Zentravo Velmar"
PEOPLE = ["Karl Jensen", "Maria Olsen", "Peter Hald", "Anna Berg", "Lars Dahl", "Eva Lund", "Ole Strand", "Ida Holm"]


def _mentions(doc_id: str, text: str, spans: list[tuple[str, str, str]]) -> list[dict]:
    mentions = []
    for number, (span, entity_type, identifier) in enumerate(spans, start=1):
        start, seen = text.find(span), 0
        while start >= 0:
            seen += 1
            mentions.append(
                {
                    "entity_type": entity_type,
                    "entity_mention_id": f"{doc_id}_em{number}_{seen}",
                    "start_offset": start,
                    "end_offset": start + len(span),
                    "span_text": span,
                    "edit_type": "check",
                    "identifier_type": identifier,
                    "entity_id": f"{doc_id}_e{number}",
                    "confidential_status": "NOT_CONFIDENTIAL",
                }
            )
            start = text.find(span, start + len(span))
    return mentions


def org_corpus() -> list[dict]:
    """Eight short TAB documents whose reviewed layer tags ``ORG`` as an organisation."""
    documents = []
    for number, person in enumerate(PEOPLE):
        doc_id = f"zv-{number}"
        text = f"The applicant, {person}, was employed by {ORG} in Oslo. {person} left {ORG} after a dispute."
        documents.append(
            {
                "doc_id": doc_id,
                "text": text,
                "task": f"Task: Annotate the document to anonymise the following person: {person}",
                "meta": {},
                "dataset_type": "train",
                "quality_checked": ["annotator1"],
                "annotations": {
                    "annotator1": {
                        "entity_mentions": _mentions(
                            doc_id, text, [(person, "PERSON", "DIRECT"), (ORG, "ORG", "QUASI")]
                        )
                    }
                },
            }
        )
    return documents


def long_documents(sample: list[dict], count: int, joined: int = 8) -> list[dict]:
    """``count`` documents, each the text of ``joined`` sample documents (no annotations):
    long enough that spaCy takes a second or two on each, so the kill lands mid-document."""
    documents = []
    for number in range(count):
        parts = [sample[(number * joined + k) % len(sample)]["text"] for k in range(joined)]
        documents.append(
            {
                "doc_id": f"long-{number}",
                "text": "\n\n".join(parts),
                "task": "Task: Annotate the document to anonymise the following person: Nobody",
                "meta": {},
                "dataset_type": "dev",
                "annotations": {},
            }
        )
    return documents
