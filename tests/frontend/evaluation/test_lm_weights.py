"""WP weighted by a masked language model's information content (a tiny model)."""

import pytest

from tests.sanitize_app.engine.conftest import tiny_models  # noqa: F401 (the tiny masked LM, built once)

from ..conftest import client_for
from .conftest import SYSTEM, TEXT, metric, span, upload

pytestmark = pytest.mark.django_db


def test_wp_with_the_masked_lms_information_content(two_layers, settings, tiny_models):  # noqa: F811
    from sanitize_app.engine.lm import load_masked_lm

    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "masked_lm": tiny_models["mlm"]}
    client = client_for(two_layers["manager"])
    page = client.post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode()
    # WP = Σ covering annotators × IC / (2 × Σ IC) over the system tokens Anna Berg met
    # Oslo, covered by 2, 2, 0 and 2 annotators: 1 - IC(met) / Σ IC.
    lm = load_masked_lm(tiny_models["mlm"]).model
    weights = {text: lm.information_content(TEXT, tuple(span(text))) for text in ("Anna", "Berg", "met", "Oslo")}
    expected = 1 - weights["met"] / sum(weights.values())
    assert 0 < expected < 1
    row = page[page.index('id="wp-lm"') :]
    assert f'<td class="num">{expected:.3f}</td>' in row and "needs a masked language model" not in row
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "masked_lm": "/nowhere/mlm"}
    page = client.post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode()
    assert "masked language model &#x27;/nowhere/mlm&#x27; could not be loaded" in page
    assert metric(page, "ER_di") == "1.000"  # the other figures are still there
