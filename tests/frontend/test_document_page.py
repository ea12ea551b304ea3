"""The document page shows the text even when no layer of it is there to show."""

from annotation.models import Document

from .conftest import client_for


def test_a_document_without_any_layer_shows_its_text_line_by_line(corpus, people):
    document = Document.objects.create(corpus=corpus, doc_id="bare-1", text="The applicant <Mr A>.\n\nHe left.")
    response = client_for(people["manager"]).get(f"/documents/{document.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    # "The applicant <Mr A>." is 21 code points; the empty line starts at 22, "He left." at 23.
    assert (
        '<article id="doc-text" class="doc-text" aria-label="Document text">'
        '<p class="blk" id="b0"><span data-o="0">The applicant &lt;Mr A&gt;.</span></p>'
        '<p class="blk" id="b1"></p>'
        '<p class="blk" id="b2"><span data-o="23">He left.</span></p></article>'
    ) in page
    assert "<mark" not in page.split('id="doc-text"')[1].split("</article>")[0]
    assert "No layer of this document is visible to you" in page
