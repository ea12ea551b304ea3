"""Errors raised by the domain services, each naming what is wrong."""


class DomainError(Exception):
    """A request the domain rules refuse. ``field`` names the offending input."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidAnnotation(DomainError):
    """A mention or decision that breaks the TAB rules (offsets, types, enums...)."""


class InvalidTransition(DomainError):
    """A layer status change that the workflow does not allow."""


class LayerLocked(DomainError):
    """The layer's status does not allow this change (confirmed, reviewed, or a review
    that has not started with the masked reading)."""

    def __init__(self, message: str, *, status: str):
        super().__init__(message, field="layer_status")
        self.status = status


class StaleLayerVersion(DomainError):
    """The client edited a version of the layer that someone else has changed since."""

    def __init__(self, layer_id: int, expected: int | None, current: int, *, entities: list[dict] | None = None):
        super().__init__(
            f"Layer {layer_id} was changed by someone else (you edited version {expected}, "
            f"it is now at version {current}). Reload to see the current annotations.",
            field="layer_version",
        )
        self.layer_id = layer_id
        self.expected = expected
        self.current = current
        # The current state of the entities the refused change was about (a merge or a
        # split), so that the client can show what happened without reloading everything.
        self.entities = entities
