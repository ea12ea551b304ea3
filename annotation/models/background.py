"""A background corpus: documents an attacker could search (e.g. Wikipedia articles),
for the web-search risk indicator's default backend and the re-identification attack. Full-text search: PostgreSQL's
text search (a GIN index) or SQLite's FTS5 (a virtual table kept in sync by triggers),
both created by migration 0004."""

from django.db import models


class BackgroundDocument(models.Model):
    collection = models.CharField(max_length=100, help_text="Where the documents come from, e.g. wikiactors.")
    url = models.CharField(max_length=500, help_text="The document's address (what a search returns).")
    title = models.CharField(max_length=300, blank=True)
    text = models.TextField()
    # The re-identification attacker's reading of ``text``, computed once (spaCy is slow)
    # and shared by every worker: pretreated lemmas joined by spaces, and the same for the
    # copy whose named entities are replaced by their labels. ``pretreatment`` names the
    # pretreatment that produced them; another one recomputes them.
    pretreated = models.TextField(blank=True)
    augmented = models.TextField(blank=True)
    pretreatment = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["collection", "id"]
        constraints = [models.UniqueConstraint(fields=["collection", "url"], name="background_url_unique")]

    def __str__(self) -> str:
        return self.title or self.url
