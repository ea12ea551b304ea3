"""``permissions.layer_access`` (one layer, evaluated in Python on the user's roles)
answers exactly as the layer querysets that scope lists and exports do, on every
combination of roles, ownership, review assignment and layer status."""

import itertools

import pytest
from django.utils import timezone

from annotation import permissions as policy
from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, Corpus, CorpusMembership, Document, ReviewAssignment
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

ROLE_SETS = [
    set(combination)
    for size in range(4)
    for combination in itertools.combinations([Role.MANAGER, Role.ANNOTATOR, Role.REVIEWER], size)
]
# The tested user's relation to a layer: its author, or someone else's layer that the
# user is not paired on, paired on but has not read masked, or has read masked.
RELATIONS = ("own", "not paired", "paired, unread", "paired, read")


@pytest.fixture
def grid():
    """For each role set: a user with those roles, and for each status and relation one
    layer. Returns (users, layers by (role-set index, status, relation))."""
    corpus = Corpus.objects.create(name="Access grid")
    others = [make_user(f"other{i}") for i in range(3)]
    for other in others:
        CorpusMembership.objects.create(corpus=corpus, user=other, role=Role.ANNOTATOR)
    users, layers = [], {}
    for index, roles in enumerate(ROLE_SETS):
        user = make_user(f"user{index}")
        CorpusMembership.objects.bulk_create([CorpusMembership(corpus=corpus, user=user, role=r) for r in roles])
        users.append(user)
        for status in LayerStatus.values:
            document = Document.objects.create(corpus=corpus, doc_id=f"d{index}-{status}", text="Mr Smith, Oslo.")
            authors = [user, *others]
            for relation, author in zip(RELATIONS, authors, strict=True):
                layer = AnnotationLayer.objects.create(document=document, annotator=author, status=status)
                if relation.startswith("paired"):
                    read = timezone.now() if relation == "paired, read" else None
                    ReviewAssignment.objects.create(layer=layer, reviewer=user, masked_read_at=read)
                layers[index, status, relation] = layer
    return users, layers


def test_layer_access_agrees_with_the_layer_querysets_on_every_combination(grid):
    users, layers = grid
    for index, user in enumerate(users):
        visible = set(policy.visible_layers(user).values_list("pk", flat=True))
        readable = set(policy.readable_layers(user).values_list("pk", flat=True))
        editable = set(policy.editable_layers(user).values_list("pk", flat=True))
        for (owner_index, status, relation), layer in layers.items():
            if owner_index != index:
                continue
            expected = policy.LayerAccess(
                visible=layer.pk in visible, readable=layer.pk in readable, editable=layer.pk in editable
            )
            fresh = AnnotationLayer.objects.get(pk=layer.pk)  # its document not loaded: the other query path
            for candidate in (layer, fresh):
                assert policy.layer_access(user, candidate) == expected, (ROLE_SETS[index], status, relation)


def test_hand_picked_answers_of_layer_access(grid):
    users, layers = grid
    annotator_only = ROLE_SETS.index({Role.ANNOTATOR})
    reviewer_only = ROLE_SETS.index({Role.REVIEWER})
    nobody = ROLE_SETS.index(set())
    full = policy.LayerAccess(visible=True, readable=True, editable=True)
    # An annotator edits their own layer in progress, reads it once confirmed, never sees another's.
    assert policy.layer_access(users[annotator_only], layers[annotator_only, "in_progress", "own"]) == full
    assert policy.layer_access(users[annotator_only], layers[annotator_only, "confirmed", "own"]) == (
        policy.LayerAccess(visible=True, readable=True, editable=False)
    )
    assert policy.layer_access(users[annotator_only], layers[annotator_only, "in_progress", "not paired"]) == (
        policy.NO_ACCESS
    )
    # A reviewer sees a paired layer, reads it only after the masked reading, edits it under review.
    assert policy.layer_access(users[reviewer_only], layers[reviewer_only, "under_review", "paired, unread"]) == (
        policy.LayerAccess(visible=True, readable=False, editable=False)
    )
    assert policy.layer_access(users[reviewer_only], layers[reviewer_only, "under_review", "paired, read"]) == full
    assert policy.layer_access(users[reviewer_only], layers[reviewer_only, "confirmed", "paired, read"]) == (
        policy.LayerAccess(visible=True, readable=True, editable=False)
    )
    # Without a role in the corpus, one's own layer is shut.
    assert policy.layer_access(users[nobody], layers[nobody, "in_progress", "own"]) == policy.NO_ACCESS


def test_an_inactive_account_has_no_access_and_a_superuser_edits_only_writable_layers(grid):
    users, layers = grid
    manager = users[ROLE_SETS.index({Role.MANAGER})]
    manager.is_active = False
    manager.save()
    assert policy.layer_access(manager, next(iter(layers.values()))) == policy.NO_ACCESS
    admin = make_user("admin")
    admin.is_superuser = True
    admin.save()
    some = next(iter(layers.values()))
    reviewed = AnnotationLayer.objects.filter(status=LayerStatus.REVIEWED).first()
    assert policy.layer_access(admin, reviewed) == policy.LayerAccess(visible=True, readable=True, editable=False)
    in_progress = AnnotationLayer.objects.filter(status=LayerStatus.IN_PROGRESS).exclude(pk=some.pk).first()
    assert policy.layer_access(admin, in_progress).editable
