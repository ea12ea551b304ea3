"""Integrity rules that span tables, enforced by the database itself.

CHECK constraints cannot look at another table, so triggers do it, on both supported
backends:

- a mention's offsets lie inside its document's text (``end_offset <= text_length``);
- a mention's entity belongs to the mention's own layer;
- an explicit link (TAB ``related_mentions``) joins two mentions of one layer;
- a document's text cannot change once it has annotation layers (offsets point into it).
"""

from django.db import migrations

from ._integrity_sql import create_triggers, drop_triggers


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
