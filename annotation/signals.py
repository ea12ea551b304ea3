"""Signals of the annotation domain, so that services need not know their consumers."""

from django.dispatch import Signal

# Sent by ``layer_edit`` after every committed-to-be change of a layer (annotations or
# status), with ``layer``: the locked layer object as it is after the change, and
# ``status_change``: whether the workflow moved the layer (else annotations changed). The
# masked review rendering listens (a change after confirmation must show in it).
layer_changed = Signal()
