"""Recorded engine and attacker settings (JSON) as one line of text for the pages."""


def setting_text(value) -> str:
    """A nested dict as "name = value" pairs, by name; a list as a comma list."""
    if isinstance(value, dict):
        return " · ".join(f"{key} = {setting_text(value[key])}" for key in sorted(value))
    if isinstance(value, list | tuple):
        return ", ".join(setting_text(item) for item in value)
    return "" if value is None else str(value)
