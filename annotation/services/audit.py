"""Writing the audit trail."""

from django.contrib.auth.models import AbstractBaseUser

from ..models import AnnotationLayer, AuditEvent, Corpus, Document


def record_event(
    action: str,
    *,
    actor: AbstractBaseUser | None,
    corpus: Corpus | None = None,
    document: Document | None = None,
    layer: AnnotationLayer | None = None,
    target: str = "",
    changes: dict | None = None,
) -> AuditEvent:
    """Append one event. The corpus and document are derived from the layer when given."""
    if layer is not None:
        document = document or layer.document
    if document is not None:
        corpus = corpus or document.corpus
    if corpus is None:
        raise ValueError("an audit event needs a corpus, a document or a layer")
    return AuditEvent.objects.create(
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        corpus=corpus,
        document=document,
        layer=layer,
        target=target[:300],
        changes=changes or {},
    )
