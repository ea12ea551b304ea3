"""The SQL of the cross-table integrity triggers (see migration 0002), shared by the
migrations that must drop and re-create them.

SQLite rebuilds a table for some ALTERs (new table, copy, drop, rename) and refuses to
drop a table that a trigger of another table names: a migration that rebuilds the
entity, mention or document table wraps the change in ``drop_sqlite_triggers`` /
``create_sqlite_triggers``. (Modules starting with "_" are not migrations.)"""

POSTGRESQL_UP = r"""
CREATE FUNCTION annotation_mention_integrity() RETURNS trigger AS $$
DECLARE
    entity_layer bigint;
    doc_length integer;
BEGIN
    SELECT layer_id INTO entity_layer FROM annotation_entity WHERE id = NEW.entity_id;
    IF entity_layer IS DISTINCT FROM NEW.layer_id THEN
        RAISE EXCEPTION 'mention % is in layer % but its entity % is in layer %',
            NEW.tab_mention_id, NEW.layer_id, NEW.entity_id, entity_layer
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT d.text_length INTO doc_length
        FROM annotation_annotationlayer l JOIN annotation_document d ON d.id = l.document_id
        WHERE l.id = NEW.layer_id;
    IF NEW.end_offset > doc_length THEN
        RAISE EXCEPTION 'mention % ends at offset % past the end of its document text (% characters)',
            NEW.tab_mention_id, NEW.end_offset, doc_length
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER annotation_mention_integrity
    BEFORE INSERT OR UPDATE OF layer_id, entity_id, start_offset, end_offset ON annotation_mention
    FOR EACH ROW EXECUTE FUNCTION annotation_mention_integrity();

CREATE FUNCTION annotation_mentionlink_integrity() RETURNS trigger AS $$
BEGIN
    IF (SELECT layer_id FROM annotation_mention WHERE id = NEW.source_id)
       IS DISTINCT FROM (SELECT layer_id FROM annotation_mention WHERE id = NEW.target_id) THEN
        RAISE EXCEPTION 'related mentions % and % are in different layers', NEW.source_id, NEW.target_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER annotation_mentionlink_integrity
    BEFORE INSERT OR UPDATE ON annotation_mentionlink
    FOR EACH ROW EXECUTE FUNCTION annotation_mentionlink_integrity();

CREATE FUNCTION annotation_document_text_frozen() RETURNS trigger AS $$
BEGIN
    IF NEW.text IS DISTINCT FROM OLD.text
       AND EXISTS (SELECT 1 FROM annotation_annotationlayer WHERE document_id = OLD.id) THEN
        RAISE EXCEPTION 'the text of document % cannot change: annotation layers point into it', OLD.doc_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER annotation_document_text_frozen
    BEFORE UPDATE OF text ON annotation_document
    FOR EACH ROW EXECUTE FUNCTION annotation_document_text_frozen();
"""

POSTGRESQL_DOWN = """
DROP TRIGGER IF EXISTS annotation_document_text_frozen ON annotation_document;
DROP FUNCTION IF EXISTS annotation_document_text_frozen();
DROP TRIGGER IF EXISTS annotation_mentionlink_integrity ON annotation_mentionlink;
DROP FUNCTION IF EXISTS annotation_mentionlink_integrity();
DROP TRIGGER IF EXISTS annotation_mention_integrity ON annotation_mention;
DROP FUNCTION IF EXISTS annotation_mention_integrity();
"""

_SQLITE_MENTION_CHECKS = """
    SELECT RAISE(ABORT, 'mention entity is in another layer than the mention')
        WHERE (SELECT layer_id FROM annotation_entity WHERE id = NEW.entity_id) IS NOT NEW.layer_id;
    SELECT RAISE(ABORT, 'mention ends past the end of its document text')
        WHERE NEW.end_offset > (
            SELECT d.text_length FROM annotation_annotationlayer l
            JOIN annotation_document d ON d.id = l.document_id WHERE l.id = NEW.layer_id);
"""
_SQLITE_LINK_CHECK = """
    SELECT RAISE(ABORT, 'related mentions are in different layers')
        WHERE (SELECT layer_id FROM annotation_mention WHERE id = NEW.source_id)
           IS NOT (SELECT layer_id FROM annotation_mention WHERE id = NEW.target_id);
"""
SQLITE_UP = [
    "CREATE TRIGGER annotation_mention_integrity_insert BEFORE INSERT ON annotation_mention "
    f"BEGIN {_SQLITE_MENTION_CHECKS} END;",
    "CREATE TRIGGER annotation_mention_integrity_update BEFORE UPDATE OF layer_id, entity_id, start_offset, end_offset "
    f"ON annotation_mention BEGIN {_SQLITE_MENTION_CHECKS} END;",
    "CREATE TRIGGER annotation_mentionlink_integrity_insert BEFORE INSERT ON annotation_mentionlink "
    f"BEGIN {_SQLITE_LINK_CHECK} END;",
    "CREATE TRIGGER annotation_mentionlink_integrity_update BEFORE UPDATE ON annotation_mentionlink "
    f"BEGIN {_SQLITE_LINK_CHECK} END;",
    """CREATE TRIGGER annotation_document_text_frozen BEFORE UPDATE OF text ON annotation_document
       WHEN NEW.text IS NOT OLD.text AND EXISTS (SELECT 1 FROM annotation_annotationlayer WHERE document_id = OLD.id)
       BEGIN SELECT RAISE(ABORT, 'the text of a document with annotation layers cannot change'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS annotation_document_text_frozen;",
    "DROP TRIGGER IF EXISTS annotation_mentionlink_integrity_update;",
    "DROP TRIGGER IF EXISTS annotation_mentionlink_integrity_insert;",
    "DROP TRIGGER IF EXISTS annotation_mention_integrity_update;",
    "DROP TRIGGER IF EXISTS annotation_mention_integrity_insert;",
]


def _executor(statements_by_vendor: dict, vendors: tuple[str, ...] = ("postgresql", "sqlite")):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if vendor not in vendors:
            return
        if vendor not in statements_by_vendor:
            raise RuntimeError(f"no integrity triggers written for the {vendor} backend")
        statements = statements_by_vendor[vendor]
        for statement in [statements] if isinstance(statements, str) else statements:
            schema_editor.execute(statement, params=None)

    return run


create_triggers = _executor({"postgresql": POSTGRESQL_UP, "sqlite": SQLITE_UP})
drop_triggers = _executor({"postgresql": POSTGRESQL_DOWN, "sqlite": SQLITE_DOWN})
create_sqlite_triggers = _executor({"sqlite": SQLITE_UP}, vendors=("sqlite",))
drop_sqlite_triggers = _executor({"sqlite": SQLITE_DOWN}, vendors=("sqlite",))
