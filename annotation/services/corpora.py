"""Corpora and their members."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count

from ..enums import Role
from ..models import BackgroundDocument, Corpus, CorpusMembership
from .audit import record_event
from .enum_values import checked_choice
from .errors import DomainError


@transaction.atomic
def create_corpus(
    name: str,
    *,
    actor: AbstractBaseUser | None,
    description: str = "",
    guidelines_version: str = "",
    mask_style: str = Corpus.MaskStyle.STARS,
) -> Corpus:
    """Create a corpus; its creator becomes its first manager."""
    name = name.strip()
    if not name:
        raise DomainError("A corpus needs a name.", field="name")
    if Corpus.objects.filter(name=name).exists():
        raise DomainError(f"A corpus named {name!r} already exists.", field="name")
    _check_mask_style(mask_style)
    corpus = Corpus.objects.create(
        name=name,
        description=description,
        mask_style=mask_style,
        created_by=actor if actor is not None and actor.is_authenticated else None,
        **({"guidelines_version": guidelines_version} if guidelines_version else {}),
    )
    if actor is not None and actor.is_authenticated:
        CorpusMembership.objects.create(corpus=corpus, user=actor, role=Role.MANAGER)
    record_event("corpus.create", actor=actor, corpus=corpus, target=name)
    return corpus


def _check_mask_style(style: str) -> None:
    if style not in Corpus.MaskStyle.values:
        raise DomainError(
            f"The mask style is one of {', '.join(Corpus.MaskStyle.values)}, not {style!r}.", field="mask_style"
        )


def add_member(
    corpus: Corpus, user: AbstractBaseUser, role: str, *, actor: AbstractBaseUser | None
) -> CorpusMembership:
    checked_choice(role, Role, "role")
    membership, created = CorpusMembership.objects.get_or_create(corpus=corpus, user=user, role=role)
    if created:
        record_event("membership.add", actor=actor, corpus=corpus, target=f"{user.username} as {role}")
    return membership


def update_corpus(corpus: Corpus, *, actor: AbstractBaseUser | None, **values) -> Corpus:
    """Change a corpus's name, description, guidelines version or mask style (masked
    review documents follow the new style the next time they are shown)."""
    allowed = {"name", "description", "guidelines_version", "mask_style"}
    unknown = set(values) - allowed
    if unknown:
        raise DomainError(f"Cannot change {', '.join(sorted(unknown))} of a corpus.", field=sorted(unknown)[0])
    if "name" in values:
        values["name"] = values["name"].strip()
        if not values["name"]:
            raise DomainError("A corpus needs a name.", field="name")
        if Corpus.objects.exclude(pk=corpus.pk).filter(name=values["name"]).exists():
            raise DomainError(f"A corpus named {values['name']!r} already exists.", field="name")
    if "mask_style" in values:
        _check_mask_style(values["mask_style"])
    before = {key: getattr(corpus, key) for key in values}
    for key, value in values.items():
        setattr(corpus, key, value)
    corpus.save(update_fields=list(values))
    record_event(
        "corpus.update", actor=actor, corpus=corpus, target=corpus.name, changes={"before": before, "after": values}
    )
    return corpus


def background_collections() -> list[tuple[str, int]]:
    """The background collections there are, with how many documents each holds."""
    counted = BackgroundDocument.objects.values("collection").annotate(documents=Count("id")).order_by("collection")
    return [(row["collection"], row["documents"]) for row in counted]


def set_background_collection(corpus: Corpus, collection: str, *, actor: AbstractBaseUser | None) -> Corpus:
    """Name the background collection the re-identification attacker of ``corpus`` learns
    from ("" for none: no risk meter in the workspace). Only an existing collection."""
    collection = (collection or "").strip()
    if collection and not BackgroundDocument.objects.filter(collection=collection).exists():
        raise DomainError(
            f"There is no background collection named {collection!r} (import it with manage.py import_background).",
            field="background_collection",
        )
    before = corpus.background_collection
    if before == collection:
        return corpus
    corpus.background_collection = collection
    corpus.save(update_fields=["background_collection"])
    record_event(
        "corpus.background",
        actor=actor,
        corpus=corpus,
        target=collection or "(none)",
        changes={"before": {"background_collection": before}, "after": {"background_collection": collection}},
    )
    return corpus
