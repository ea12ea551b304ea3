"""Attack-guided masking as an option of a release (``Release.attack_guided_top_k``).

After the strategy, each document goes through ``guided_masking``: what lets the
re-identification attacker, trained on the corpus's background collection, put the
document's protected person among its first k guesses is masked or generalized too. The
attacker is the configured one (``SANITIZE_REIDENTIFICATION``), fitted once per process
(``reidentification_attackers.fitted_attacker``). Added masks use the strategy's rule
ladders when it has them (rules, INTACT) and the numbered type otherwise.

What is recorded: in ``Release.settings["attack_guided"]`` the k, the background and the
attacker (its full description once a worker has fitted it); per document, the person's
rank before and after (``Release.metrics["attack_ranks"]``, written under the release's
row lock with the document's own row) and one decision with path "attack" per added mask,
its reason naming the ranks; in the release's metrics, the mean ranks and the share of
documents with the person in the top k, before and after."""

import statistics
from dataclasses import dataclass

from django.db import transaction

from sanitize_app.engine.reidentification.guided_masking import guided_masking, spacy_entities
from sanitize_app.engine.release.engine import ReleaseEngine
from sanitize_app.engine.release.types import ReleaseInput, SanitizedDocument

from ..models import BackgroundDocument, Corpus, Document, Release
from .errors import DomainError

FIELD = "attack_guided_top_k"
MAX_TOP_K = 100  # a k beyond this hides a person among more guesses than anyone reads


def attack_guided_settings(corpus: Corpus, top_k) -> dict | None:
    """What a release with attack-guided masking at ``top_k`` records (None: off).
    Refused, naming the field, for a k that is not a whole number from 1 to MAX_TOP_K or a
    corpus without a background collection with documents."""
    if top_k is None or top_k == "":
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise DomainError(
            f"Attack-guided masking needs k, a whole number from 1 to {MAX_TOP_K} (got {top_k!r}).", field=FIELD
        )
    collection = corpus.background_collection
    if not collection:
        raise DomainError(
            f"Attack-guided masking needs a background collection (the public documents the attacker learns "
            f"from): corpus {corpus.name} has none. Set one on the corpus page.",
            field=FIELD,
        )
    if not BackgroundDocument.objects.filter(collection=collection).exists():
        raise DomainError(
            f"Attack-guided masking needs a background: the collection {collection!r} of corpus {corpus.name} has "
            f"no document (python manage.py import_background FILE --collection {collection}).",
            field=FIELD,
        )
    from .reidentification_attackers import attacker_name

    return {"top_k": top_k, "background": collection, "attacker": attacker_name()}


@dataclass
class GuidedMasker:
    """The release's guided masking, with its attacker fitted (one per batch)."""

    top_k: int
    fitted: object  # reidentification_attackers.FittedAttacker
    candidates: object  # the strategy's rule candidates, or None

    def apply(self, document: Document, source: ReleaseInput, sanitized: SanitizedDocument):
        """(the document with guided masking, its ranks record)."""
        person = document.protected_person
        if not person:
            return sanitized, {"skipped": "the document names no person to protect"}
        try:
            result = guided_masking(
                source,
                sanitized,
                person,
                self.fitted.attacker,
                self.fitted.pretreatment,
                top_k=self.top_k,
                candidates=self.candidates,
                entities=spacy_entities(self.fitted.pretreatment.nlp),
            )
        except ValueError as exc:  # the background does not know the person: nothing to steer by
            return sanitized, {"skipped": str(exc)}
        return result.document, result.summary()


def guided_masker(release: Release, engine: ReleaseEngine) -> GuidedMasker | None:
    """The masker of ``release`` (None when the option is off); fits the attacker (or
    takes this process's) and records its description in the release's settings."""
    if release.attack_guided_top_k is None:
        return None
    from .reidentification_attackers import fitted_attacker

    recorded = (release.settings or {}).get("attack_guided", {})
    fitted = fitted_attacker(release.corpus.background_collection, recorded.get("attacker", ""))
    record_attacker(release, fitted.description)
    return GuidedMasker(release.attack_guided_top_k, fitted, engine.rules)


def record_attacker(release: Release, description: dict) -> None:
    """The fitted attacker's description in ``settings["attack_guided"]`` (row locked:
    batches record it side by side)."""
    with transaction.atomic():
        locked = Release.objects.select_for_update().only("settings").get(pk=release.pk)
        settings = dict(locked.settings or {})
        guided = dict(settings.get("attack_guided", {}))
        if guided.get("attacker_description") != description:
            guided["attacker_description"] = description
            settings["attack_guided"] = guided
            Release.objects.filter(pk=release.pk).update(settings=settings)
    release.settings = settings


def record_ranks(release_id: int, doc_id: str, ranks: dict) -> None:
    """One document's ranks in ``metrics["attack_ranks"]``; call inside the transaction
    that writes the document (the release's row is locked until it commits)."""
    locked = Release.objects.select_for_update().only("metrics").get(pk=release_id)
    metrics = dict(locked.metrics or {})
    metrics["attack_ranks"] = {**metrics.get("attack_ranks", {}), doc_id: ranks}
    Release.objects.filter(pk=release_id).update(metrics=metrics)


def ranks_summary(ranks: dict[str, dict], top_k: int) -> dict:
    """Mean rank of the protected person and share of documents with them in the top k,
    before and after guided masking, over the documents it could attack."""
    attacked = [record for record in ranks.values() if "rank_before" in record]
    summary = {
        "top_k": top_k,
        "documents": len(attacked),
        "skipped": [{"doc_id": doc_id, "reason": r["skipped"]} for doc_id, r in ranks.items() if "skipped" in r],
    }
    if not attacked:
        return summary
    before = [record["rank_before"] for record in attacked]
    after = [record["rank_after"] for record in attacked]
    return {
        **summary,
        "mean_rank_before": round(statistics.fmean(before), 3),
        "mean_rank_after": round(statistics.fmean(after), 3),
        "in_top_k_before": round(sum(rank <= top_k for rank in before) / len(attacked), 4),
        "in_top_k_after": round(sum(rank <= top_k for rank in after) / len(attacked), 4),
        "steps": sum(record.get("steps", 0) for record in attacked),
    }
