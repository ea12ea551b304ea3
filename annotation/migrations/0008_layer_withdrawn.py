"""A layer status for work a manager took back: withdrawn (read-only, never finished).

The check constraint on the status changes, which SQLite does by rebuilding the layer
table: the integrity triggers that name that table are dropped around it (see
``_integrity_sql``)."""

from django.db import migrations, models

from ._integrity_sql import create_sqlite_triggers, drop_sqlite_triggers

STATUSES = ["assigned", "in_progress", "confirmed", "under_review", "reviewed", "withdrawn"]


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_prediction_mask_probability"),
    ]

    operations = [
        migrations.RunPython(drop_sqlite_triggers, create_sqlite_triggers),
        migrations.RemoveConstraint(
            model_name="annotationlayer",
            name="layer_status_valid",
        ),
        migrations.AlterField(
            model_name="annotationlayer",
            name="status",
            field=models.CharField(
                choices=[
                    ("assigned", "Assigned"),
                    ("in_progress", "In progress"),
                    ("confirmed", "Confirmed"),
                    ("under_review", "Under review"),
                    ("reviewed", "Reviewed"),
                    ("withdrawn", "Withdrawn"),
                ],
                default="assigned",
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="annotationlayer",
            constraint=models.CheckConstraint(condition=models.Q(status__in=STATUSES), name="layer_status_valid"),
        ),
        migrations.RunPython(create_sqlite_triggers, drop_sqlite_triggers),
    ]
