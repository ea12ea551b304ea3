"""Re-create the SQLite triggers that keep the background corpus's full-text index
(migration 0004) in step with its documents, and rebuild the index.

Migration 0012 added the pretreatment columns to ``annotation_backgrounddocument``;
SQLite adds such columns by rebuilding the table, which drops the table's triggers, so
documents imported since were not searchable. The update trigger now fires only when
the title or text changes: storing a document's pretreated words (every worker's first
attack on a new background) leaves the index alone. PostgreSQL indexes an expression
of the table (a GIN index), which the column additions kept: nothing to do there."""

from django.db import migrations

TRIGGERS = ("annotation_background_fts_insert", "annotation_background_fts_delete", "annotation_background_fts_update")
SQLITE_UP = [
    *(f"DROP TRIGGER IF EXISTS {name};" for name in TRIGGERS),
    "CREATE TRIGGER annotation_background_fts_insert AFTER INSERT ON annotation_backgrounddocument BEGIN "
    "INSERT INTO annotation_backgrounddocument_fts(rowid, title, text) VALUES (new.id, new.title, new.text); END;",
    "CREATE TRIGGER annotation_background_fts_delete AFTER DELETE ON annotation_backgrounddocument BEGIN "
    "INSERT INTO annotation_backgrounddocument_fts(annotation_backgrounddocument_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); END;",
    "CREATE TRIGGER annotation_background_fts_update AFTER UPDATE OF title, text ON annotation_backgrounddocument "
    "BEGIN "
    "INSERT INTO annotation_backgrounddocument_fts(annotation_backgrounddocument_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); "
    "INSERT INTO annotation_backgrounddocument_fts(rowid, title, text) VALUES (new.id, new.title, new.text); END;",
    # The documents imported while the triggers were missing are indexed too.
    "INSERT INTO annotation_backgrounddocument_fts(annotation_backgrounddocument_fts) VALUES ('rebuild');",
]


def recreate_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in SQLITE_UP:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0012_reidentification")]

    operations = [migrations.RunPython(recreate_sqlite_triggers, migrations.RunPython.noop)]
