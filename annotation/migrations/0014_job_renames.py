"""Job fields shared by every long task (models.job): counts renamed to done / total."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("annotation", "0013_background_fts_triggers")]

    operations = [
        migrations.RenameField("importjob", "documents_done", "done"),
        migrations.RenameField("preannotationrun", "documents_total", "total"),
        migrations.RenameField("release", "documents_total", "total"),
    ]
