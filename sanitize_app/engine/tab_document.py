"""What the engine reads from a TAB document besides its text: the person to protect
(from the task string, or the applicant in the metadata) and the respondent states of an
ECHR judgment (``meta.countries``: naming them does not identify the applicant)."""

TASK_MARKER = "following person:"


def person_from_task(task: str) -> str:
    """The person named by a TAB task string ('' when the string has another shape)."""
    index = task.find(TASK_MARKER)
    return task[index + len(TASK_MARKER) :].strip() if index >= 0 else ""


def person_to_protect(document: dict) -> str:
    meta = document.get("meta") or {}
    return person_from_task(document.get("task") or "") or str(meta.get("applicant") or "")


def respondent_states(meta: dict | None) -> list[str]:
    """ISO 3166 alpha-3 codes, from a string ("TUR", "TUR;RUS") or a list."""
    countries = (meta or {}).get("countries") or []
    if isinstance(countries, str):
        countries = countries.replace(";", ",").split(",")
    return [str(code).strip().upper() for code in countries if str(code).strip()]
