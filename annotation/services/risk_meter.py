"""The workspace's live re-identification risk meter: how well an attacker trained on the
corpus's background collection names the protected person from the layer as it is now
masked (TRI, see ``sanitize_app.engine.reidentification``).

A reading is computed in a worker (an attack takes a second or more; fitting the
attacker the first time much longer) and kept in Django's cache, shared by every process,
under the layer's id and version, the collection and the attacker's settings: a decision
makes a new version, hence a new reading, and an old version's reading is never shown
for the new one. Until it is there the reading is *pending*, and the computation is
requested once (``cache.add`` as a short lock) however often the page asks.

- A corpus without a background collection has no meter (``layer_risk`` is None).
- A document without a person to protect, or whose person is not in the background,
  gets a reading that says so instead of a gauge."""

import hashlib
import json
import logging
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.core.cache import cache

from sanitize_app.engine.reidentification.attack import attack, normalize_name
from sanitize_app.engine.reidentification.types import ProtectedText

from ..models import AnnotationLayer
from .background import background_state
from .errors import DomainError
from .layer_attack import EntityCover, attacked_document, to_original
from .reidentification_attackers import attacker_name, attacker_settings, fitted_attacker
from .risk_suggestions import suggested_masks

log = logging.getLogger(__name__)

READING_FORMAT = 2  # bump when RiskReading's fields change: older cached readings are not read
READING_TIMEOUT_S = 24 * 3600
UNAVAILABLE_TIMEOUT_S = 60  # a failed reading is tried again a minute later, not a day
# A request lost with its worker is made again after this; long enough for a first
# reading on a new background (pretreating it, then fitting), so polls do not pile up
# copies of that work.
REQUEST_LOCK_S = 15 * 60
READY, PENDING, UNAVAILABLE = "ready", "pending", "unavailable"
NAMED, NEAR, FAR = "named", "near", "far"  # rank 1; within the top k; beyond


@dataclass
class RiskReading:
    state: str  # READY, PENDING or UNAVAILABLE
    layer_version: int
    collection: str
    attacker: str = ""
    reason: str = ""  # why there is no gauge (UNAVAILABLE)
    rank: int = 0  # of the protected person, 1 = named
    people: int = 0  # N, individuals in the background
    top_k: int = 5
    person: str = ""
    # [{text, start, end, weight, entity_id, entity_type, decision}]: offsets into the original
    terms: list[dict] = field(default_factory=list)
    # [{text, start, end, entity_type, replacement, rank_before, rank_after, entity_id, decision}]
    suggestions: list[dict] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.state == READY

    @property
    def level(self) -> str:
        """NAMED (rank 1), NEAR (within the top k) or FAR (beyond)."""
        if self.rank == 1:
            return NAMED
        return NEAR if self.rank <= self.top_k else FAR


def meter_settings() -> dict:
    """What a reading depends on besides the layer: the attacker and its settings."""
    config = settings.SANITIZE_REIDENTIFICATION
    name = attacker_name()
    return {
        "attacker": name,
        "options": attacker_settings(name),
        "top_k": config.get("top_k", 5),
        "leaking_terms": config.get("leaking_terms", 10),
    }


def reading_key(layer: AnnotationLayer, version: int | None = None) -> str:
    digest = hashlib.sha256(json.dumps(meter_settings(), sort_keys=True).encode()).hexdigest()[:16]
    # The background's state too: a re-imported collection gives new readings.
    name = layer.document.corpus.background_collection
    background = json.dumps([name, *background_state(name)])
    collection = hashlib.sha256(background.encode()).hexdigest()[:16]
    version = layer.version if version is None else version
    return f"risk-meter:{READING_FORMAT}:{layer.pk}:{version}:{collection}:{digest}"


def layer_risk(layer: AnnotationLayer) -> RiskReading | None:
    """The reading of ``layer`` at its current version: from the cache, else pending
    (and its computation requested). None when the corpus has no background."""
    collection = layer.document.corpus.background_collection
    if not collection:
        return None
    if not layer.document.protected_person:
        return RiskReading(UNAVAILABLE, layer.version, collection, reason="This document names no person to protect.")
    try:
        key, attacker = reading_key(layer), meter_settings()["attacker"]
    except DomainError as exc:  # a misconfigured attacker: say so where the gauge would be
        return RiskReading(UNAVAILABLE, layer.version, collection, reason=exc.message)
    stored = cache.get(key)
    if stored is not None:
        return RiskReading(**stored)
    request_reading(layer)
    return RiskReading(PENDING, layer.version, collection, attacker=attacker)


def request_reading(layer: AnnotationLayer) -> bool:
    """Enqueue the computation of the layer's reading once per version (True if it was)."""
    if not cache.add(reading_key(layer) + ":requested", True, timeout=REQUEST_LOCK_S):
        return False
    from ..tasks import enqueue_layer_risk  # tasks import the services, not the other way round

    enqueue_layer_risk(layer.pk, layer.version)
    return True


def compute_layer_risk(layer_id: int, version: int) -> RiskReading | None:
    """Compute and store the reading of ``layer_id`` as it is now, if it is still at
    ``version`` (a later change requests its own reading). Never raises: a failure is a
    reading that says why."""
    layer = AnnotationLayer.objects.select_related("document__corpus").filter(pk=layer_id).first()
    if layer is None or layer.version != version or not layer.document.corpus.background_collection:
        return None
    try:
        reading = _read(layer)
    except Exception as exc:  # the page must stop waiting and say why
        log.exception("risk meter of layer %s failed", layer_id)
        reason = getattr(exc, "message", "") or f"The attack failed ({type(exc).__name__}: {exc})."
        reading = RiskReading(UNAVAILABLE, version, layer.document.corpus.background_collection, reason=reason)
    layer.refresh_from_db(fields=["version"])
    if layer.version != version:
        return None  # changed while it was attacked: this reading describes no version
    timeout = UNAVAILABLE_TIMEOUT_S if reading.state == UNAVAILABLE else READING_TIMEOUT_S
    cache.set(reading_key(layer, version), asdict(reading), timeout=timeout)
    return reading


def _read(layer: AnnotationLayer) -> RiskReading:
    chosen = meter_settings()
    collection = layer.document.corpus.background_collection
    fitted = fitted_attacker(collection, chosen["attacker"])
    person = _person_in(layer.document.protected_person, fitted.people)
    base = RiskReading(UNAVAILABLE, layer.version, collection, attacker=fitted.name, people=len(fitted.people))
    # Being last is never "near": with fewer people than k + 1, k shrinks to N - 1.
    base.top_k = max(1, min(chosen["top_k"], len(fitted.people) - 1))
    if person is None:
        base.reason = (
            f"{layer.document.protected_person} is not among the {len(fitted.people)} people of the background "
            f"{collection!r}: the attacker cannot be asked about them."
        )
        return base
    sanitized = attacked_document(layer)
    protected = ProtectedText(doc_id=layer.document.doc_id, person=person, text=sanitized.text)
    result = attack(fitted.attacker, fitted.pretreatment, [protected], leaking_terms=chosen["leaking_terms"])
    outcome = result.outcomes[0]
    cover = EntityCover(layer)
    base.state, base.rank, base.person, base.people = READY, outcome.rank, person, result.people
    base.terms = _terms(outcome.leaking_terms, sanitized.spans, cover)
    base.suggestions = suggested_masks(layer, sanitized, fitted, person, base.top_k, cover)
    return base


def _terms(leaking, spans, cover: EntityCover) -> list[dict]:
    """The leaking terms outside replacements, each word once (its strongest occurrence:
    the terms come strongest first), at their place in the original."""
    terms, seen = [], set()
    for term in leaking:
        shown = _term(term, spans, cover)
        if shown is not None and term.text.casefold() not in seen:
            seen.add(term.text.casefold())
            terms.append(shown)
    return terms


def _term(term, spans, cover: EntityCover) -> dict | None:
    original = to_original(term.start, term.end, spans)
    if original is None:
        return None  # a label the annotator already put there
    covering = cover.at(*original)
    return {
        "text": term.text,
        "start": original[0],
        "end": original[1],
        "weight": round(term.weight, 4),
        "entity_id": covering.entity_id if covering else None,
        "entity_type": covering.entity_type if covering else "",
        "decision": covering.decision if covering else "",
        "mask_as": covering.mask_as if covering else "",
    }


def _person_in(name: str, people: list[str]) -> str | None:
    """``name`` as the background spells it (case and spacing aside, as the attack reads
    names), or None."""
    wanted = normalize_name(name)
    return next((person for person in people if normalize_name(person) == wanted), None)
