"""The form that starts a release: whose spans (the source) and how to replace them (the
strategy). The form only checks that the choices exist; whether the corpus can release
from that source is the release service's rule, and its refusal (a ``DomainError``
naming a field) is shown next to that field."""

from django import forms
from django.contrib.auth import get_user_model

from annotation.enums import FINISHED_LAYER_STATUSES
from annotation.models import Corpus, Release
from annotation.services.errors import DomainError
from annotation.services.release_guided import MAX_TOP_K

# One line per strategy, shown under its choice (what the reader of the release gets).
STRATEGY_HELP = {
    Release.Strategy.SUPPRESS: "Removes each span: nothing is left in its place.",
    Release.Strategy.STARS: "Replaces every character of a span by *, keeping the layout and its length.",
    Release.Strategy.LABEL: "Replaces each entity by its type, e.g. [PERSON].",
    Release.Strategy.PLACEHOLDER: "Replaces each entity by its numbered type, the same for all its mentions: PERSON_1.",
    Release.Strategy.RULES: (
        "The most specific rule generalization: dates to month, season or year, numbers to ranges, places to "
        "country or region, frequent terms to a hypernym; names and codes get numbered placeholders."
    ),
    Release.Strategy.INTACT: (
        "Tries generalizations from specific to general and keeps the first one an inference attacker cannot "
        "invert; the numbered type when every candidate is guessed."
    ),
}

# The strategies' names in the comparison table, where the columns must fit the page.
STRATEGY_SHORT = {
    Release.Strategy.SUPPRESS: "Suppression",
    Release.Strategy.STARS: "Stars",
    Release.Strategy.LABEL: "Type label",
    Release.Strategy.PLACEHOLDER: "Placeholders",
    Release.Strategy.RULES: "Rules",
    Release.Strategy.INTACT: "INTACT",
}

SOURCE_HELP = {
    Release.Source.REVIEWED: "Per document, the finished layer with the best status (reviewed first).",
    Release.Source.ANNOTATOR: "The finished layers of the annotator chosen below.",
    Release.Source.PREANNOTATION: "The spans the pre-annotation engine masks, from its newest run.",
}


def annotators_with_finished_layers(corpus: Corpus):
    return (
        get_user_model()
        .objects.filter(layers__document__corpus=corpus, layers__status__in=FINISHED_LAYER_STATUSES)
        .distinct()
        .order_by("username")
    )


class ReleaseForm(forms.Form):
    source = forms.ChoiceField(
        label="Spans to release",
        choices=Release.Source.choices,
        initial=Release.Source.REVIEWED,
        widget=forms.RadioSelect,
    )
    annotator = forms.ModelChoiceField(
        label="Annotator",
        queryset=get_user_model().objects.none(),
        required=False,
        empty_label="— choose an annotator —",
        to_field_name="username",
        help_text="For the source 'One annotator's layers': annotators with a finished layer in this corpus.",
    )
    strategy = forms.ChoiceField(
        label="Strategy",
        choices=Release.Strategy.choices,
        initial=Release.Strategy.INTACT,
        widget=forms.RadioSelect,
    )

    attack_guided_top_k = forms.IntegerField(
        label="Attack-guided masking: keep the protected person out of the attacker's top k",
        required=False,
        min_value=1,
        max_value=MAX_TOP_K,
        widget=forms.NumberInput(attrs={"placeholder": "off", "aria-describedby": "release-attack-guided-help"}),
        help_text=(
            "Empty: off. With k, a re-identification attacker trained on the corpus's background collection reads "
            "each released document; the terms that keep its protected person among the attacker's first k guesses "
            "are masked or generalized too, each with the ranks it changed. Needs a background collection."
        ),
    )

    def __init__(self, *args, corpus: Corpus, **kwargs):
        kwargs.setdefault("auto_id", "release_%s")
        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = annotators_with_finished_layers(corpus)

    def choices_with_help(self, name: str, helps: dict) -> list[tuple]:
        """The radio buttons of ``name``, each with its one-line explanation."""
        return [(choice, helps.get(choice.data["value"], "")) for choice in self[name]]

    @property
    def sources(self) -> list[tuple]:
        return self.choices_with_help("source", SOURCE_HELP)

    @property
    def strategies(self) -> list[tuple]:
        return self.choices_with_help("strategy", STRATEGY_HELP)

    def refused(self, error: DomainError) -> None:
        """The service's refusal, next to the field it names (above the form otherwise)."""
        self.add_error(error.field if error.field in self.fields else None, error.message)
