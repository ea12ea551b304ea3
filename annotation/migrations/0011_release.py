"""Sanitized releases: a release of a corpus, its documents and the decision taken for each entity."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0010_prediction_confidential_status"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Release",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("reviewed", "Reviewed layers first"),
                            ("annotator", "One annotator's layers"),
                            ("preannotation", "The newest pre-annotation"),
                        ],
                        max_length=20,
                    ),
                ),
                (
                    "strategy",
                    models.CharField(
                        choices=[
                            ("suppress", "Suppression"),
                            ("stars", "Stars (one * per character)"),
                            ("label", "Entity type label"),
                            ("placeholder", "Numbered placeholders"),
                            ("rules", "Rule generalization"),
                            ("intact", "Generalization guided by an inference attack (INTACT)"),
                        ],
                        max_length=20,
                    ),
                ),
                ("settings", models.JSONField(blank=True, default=dict)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("succeeded", "Succeeded"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("documents_total", models.PositiveIntegerField(default=0)),
                ("metrics", models.JSONField(blank=True, default=dict)),
                ("error", models.TextField(blank=True)),
                (
                    "annotator",
                    models.ForeignKey(
                        blank=True,
                        help_text="Whose layers were released (source 'annotator' only).",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "corpus",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="releases", to="annotation.corpus"
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ReleaseDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "status",
                    models.CharField(
                        choices=[("pending", "Pending"), ("done", "Done"), ("failed", "Failed")],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("seconds", models.FloatField(default=0.0)),
                ("sanitized_text", models.TextField(blank=True)),
                ("spans", models.JSONField(blank=True, default=list)),
                ("tps", models.FloatField(blank=True, null=True)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="annotation.document"
                    ),
                ),
                (
                    "release",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="documents", to="annotation.release"
                    ),
                ),
            ],
            options={
                "ordering": ["release", "document__position", "document_id"],
            },
        ),
        migrations.CreateModel(
            name="ReleaseDecision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("entity_key", models.CharField(max_length=200)),
                (
                    "entity_type",
                    models.CharField(
                        choices=[
                            ("PERSON", "Person"),
                            ("CODE", "Code"),
                            ("LOC", "Location"),
                            ("ORG", "Organisation"),
                            ("DEM", "Demographic attribute"),
                            ("DATETIME", "Date / time"),
                            ("QUANTITY", "Quantity"),
                            ("MISC", "Miscellaneous"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "identifier_type",
                    models.CharField(
                        choices=[
                            ("DIRECT", "Direct identifier"),
                            ("QUASI", "Quasi identifier"),
                            ("NO_MASK", "No mask"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "original",
                    models.TextField(help_text="The first mention's text: shown to managers, never exported."),
                ),
                ("replacement", models.TextField(blank=True)),
                (
                    "path",
                    models.CharField(
                        choices=[
                            ("first", "First candidate"),
                            ("later", "A later candidate"),
                            ("fallback", "Fallback (numbered label)"),
                            ("fixed", "Fixed by the strategy"),
                        ],
                        max_length=10,
                    ),
                ),
                ("reason", models.TextField(blank=True)),
                ("candidate_source", models.CharField(blank=True, max_length=40)),
                ("candidates", models.JSONField(blank=True, default=list)),
                ("trials", models.JSONField(blank=True, default=list)),
                ("mentions", models.JSONField(blank=True, default=list)),
                ("position", models.PositiveIntegerField(default=0, help_text="Order of the entity in the document.")),
                (
                    "release_document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="decisions",
                        to="annotation.releasedocument",
                    ),
                ),
            ],
            options={
                "ordering": ["release_document", "position", "id"],
            },
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(
                condition=models.Q(("source__in", ["reviewed", "annotator", "preannotation"])),
                name="release_source_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(
                condition=models.Q(("strategy__in", ["suppress", "stars", "label", "placeholder", "rules", "intact"])),
                name="release_strategy_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["pending", "running", "succeeded", "failed"])),
                name="release_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="release",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("annotator__isnull", False), ("source", "annotator")),
                    models.Q(models.Q(("source", "annotator"), _negated=True), ("annotator__isnull", True)),
                    _connector="OR",
                ),
                name="release_annotator_iff_source_annotator",
            ),
        ),
        migrations.AddConstraint(
            model_name="releasedocument",
            constraint=models.UniqueConstraint(fields=("release", "document"), name="release_document_unique"),
        ),
        migrations.AddConstraint(
            model_name="releasedocument",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["pending", "done", "failed"])), name="release_document_status_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="releasedecision",
            constraint=models.CheckConstraint(
                condition=models.Q(("path__in", ["first", "later", "fallback", "fixed"])),
                name="release_decision_path_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="releasedecision",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("entity_type__in", ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"])
                ),
                name="release_decision_entity_type_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="releasedecision",
            constraint=models.CheckConstraint(
                condition=models.Q(("identifier_type__in", ["DIRECT", "QUASI", "NO_MASK"])),
                name="release_decision_identifier_type_valid",
            ),
        ),
    ]
