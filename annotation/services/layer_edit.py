"""The unit of work of every annotation change: lock the layer, check the version the
client saw, apply the change, bump the version.

Optimistic concurrency: two tabs or two people on one layer cannot overwrite each other
silently. A client sends the ``version`` it last saw; a stale one is refused with
``StaleLayerVersion`` and nothing is written.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ..enums import LayerStatus
from ..models import AnnotationLayer, Entity, Mention
from ..signals import layer_changed
from .errors import StaleLayerVersion
from .layer_states import refuse_write


@contextmanager
def layer_edit(
    layer: AnnotationLayer,
    *,
    actor: AbstractBaseUser | None,
    expected_version: int | None = None,
    by_person: bool = True,
    status_change: bool = False,
) -> Iterator[AnnotationLayer]:
    """Yield the locked layer inside a transaction; on success its version is bumped.

    ``expected_version=None`` skips the check (system changes, scripts; the API and the
    pages always send it). A change made by a person starts an assigned layer; a system
    change (pre-annotation) does not. Unless ``status_change`` (the workflow moving the
    layer on), the layer's status must allow ``actor`` to change its annotations."""
    with transaction.atomic():
        locked = AnnotationLayer.objects.select_for_update().get(pk=layer.pk)
        # A layer's document never changes (its text is frozen once layers exist): reuse the
        # caller's object rather than reading it again under the lock. Its annotator may
        # (a hand-over), so the caller's is reused only while it is still the locked row's.
        locked.document = layer.document
        if locked.annotator_id == layer.annotator_id:
            locked.annotator = layer.annotator
        if expected_version is not None and locked.version != expected_version:
            raise StaleLayerVersion(locked.pk, expected_version, locked.version)
        if not status_change:
            refuse_write(locked, actor)
        yield locked
        locked.version += 1
        fields = ["version", "next_serial", "updated_at"]
        if by_person and locked.status == LayerStatus.ASSIGNED:
            locked.status = LayerStatus.IN_PROGRESS
            locked.started_at = timezone.now()
            fields += ["status", "started_at"]
        locked.save(update_fields=fields)
    # Callers holding the original object see the new version too.
    layer.version = locked.version
    layer.status = locked.status
    layer.next_serial = locked.next_serial
    layer_changed.send(sender=AnnotationLayer, layer=locked, status_change=status_change)


def allocate_tab_id(layer: AnnotationLayer, kind: str, taken: set[str] | None = None) -> str:
    """A fresh TAB identifier in the style of the official files
    (``<doc_id>_<annotator>_e<n>`` for entities, ``..._em<n>`` for mentions).

    ``layer`` must be the locked layer of a ``layer_edit`` block. ``taken``: the layer's
    ids of that kind, read once by a caller allocating many (it receives the new one);
    without it each candidate is checked in the database."""
    model, field = (Entity, "tab_entity_id") if kind == "e" else (Mention, "tab_mention_id")
    while True:
        candidate = f"{layer.document.doc_id}_{layer.annotator.username}_{kind}{layer.next_serial}"
        layer.next_serial += 1
        if taken is None:
            if not model.objects.filter(layer=layer, **{field: candidate}).exists():
                return candidate
        elif candidate not in taken:
            taken.add(candidate)
            return candidate


def touch(*entities: Entity | int | None) -> None:
    """Mark entities as changed by a person: pre-annotation runs leave them alone.
    An entity object already marked is skipped (no write on every later decision)."""
    ids = [
        e.pk if isinstance(e, Entity) else e
        for e in entities
        if e is not None and not (isinstance(e, Entity) and e.touched)
    ]
    if ids:
        Entity.objects.filter(pk__in=ids, touched=False).update(touched=True)
    for entity in entities:
        if isinstance(entity, Entity):
            entity.touched = True
