"""The Django app of the TAB annotation workflow."""
