"""The re-identification risk of a release, on its page: start an attack, follow it, then
read TRIR beside the random baseline, each document's rank and guesses, and the terms
that gave the re-identified ones away, each a link to where it is in the workspace.

Managers of the release's corpus only: the release is looked up through the user's
managed corpora on every request (404 otherwise, as on the other release pages)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.models import ReidentificationOutcome, ReidentificationRun, Release
from annotation.services.errors import DomainError
from annotation.services.reidentification_attackers import attacker_name
from annotation.services.reidentification_report import has_background, newest_run, source_layers
from annotation.tasks import submit_release_attack

from .access import managed_release
from .setting_text import setting_text

ATTACKER_HELP = {
    ReidentificationRun.Attacker.TFIDF_SVC: "seconds; ranks sanitization methods as the published attacker does",
    ReidentificationRun.Attacker.ENCODER_LR: "minutes; closer to the published risk levels",
    ReidentificationRun.Attacker.TRANSFORMER_FT: "the published attacker's kind: a GPU's work",
}


def term_link(outcome: ReidentificationOutcome, term: dict, layer_pk: int | None) -> str:
    """Where a leaking term is: the release's layer in the workspace, opened at the term,
    or the document's page (a release of pre-annotations); none inside a replacement."""
    start = term.get("original_start")
    if start is None or outcome.document_id is None:
        return ""
    if layer_pk is not None:
        return f"{reverse('workspace', args=[layer_pk])}?at={start}"
    return reverse("document-detail", args=[outcome.document_id])


def outcome_rows(release: Release, run: ReidentificationRun) -> list[dict]:
    outcomes = list(run.outcomes.all())
    layers = source_layers(release, {o.document_id for o in outcomes if o.re_identified and o.document_id})
    rows = []
    for outcome in outcomes:
        layer_pk = layers.get(outcome.document_id)
        rows.append(
            {
                "outcome": outcome,
                "guesses": [
                    {"name": name, "score": score, "true": name == outcome.person} for name, score in outcome.guesses
                ],
                "terms": [{**term, "url": term_link(outcome, term, layer_pk)} for term in outcome.leaking_terms],
            }
        )
    return rows


def panel_context(release: Release) -> dict:
    """The panel's context (``reid``): whether an attack can start, the newest run, and
    its report once it succeeded."""
    run = newest_run(release)
    default = attacker_name()
    panel = {
        "release": release,
        "background": has_background(release),
        "collection": release.corpus.background_collection,
        "attackers": [
            (value, label, ATTACKER_HELP.get(value, "")) for value, label in ReidentificationRun.Attacker.choices
        ],
        "default_attacker": default,
        "run": run,
    }
    if run is not None:
        panel["settings"] = [(key.replace("_", " "), setting_text(run.settings[key])) for key in sorted(run.settings)]
        if run.status == ReidentificationRun.Status.SUCCEEDED:
            panel["rows"] = outcome_rows(release, run)
    return {"reid": panel}


@login_required
@require_http_methods(["GET", "POST"])
def release_reidentification(request, pk: int):
    """GET: the panel. POST: start a run."""
    release = managed_release(request, pk)
    if request.method == "POST":
        try:
            submit_release_attack(release, attacker=request.POST.get("attacker", ""), actor=request.user)
        except DomainError as error:
            messages.error(request, error.message)
        return redirect(reverse("release-detail", args=[release.pk]) + "#reidentification")
    return render(request, "frontend/release/reidentification.html", panel_context(release))
