"""Fast row inserts for the few tables that an import fills with hundreds of thousands
of rows: ``COPY ... FROM STDIN`` on PostgreSQL, multi-row ``INSERT ... VALUES`` on SQLite.

``bulk_create`` spends most of a full TAB import in Python (model instances, per-field
preparation, SQLite batches of 999 parameters); on PostgreSQL even prepared multi-row
INSERTs cost more in client-side query parsing than COPY costs in all. Constraints and
row triggers still check every row (COPY fires them too)."""

import sqlite3
from collections.abc import Iterable, Sequence
from itertools import islice

from django.db import connection
from django.db.models import Model

MAX_ROWS_PER_STATEMENT = 500


def _max_parameters() -> int:
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        return connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return 65535  # PostgreSQL's wire protocol limit


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Insert ``rows`` (tuples in the order of ``columns``, values already in database
    form) into ``model``'s table; returns how many."""
    if connection.vendor == "postgresql":
        return _copy_rows(model, columns, rows)
    quote = connection.ops.quote_name
    head = "INSERT INTO {table} ({columns}) VALUES ".format(
        table=quote(model._meta.db_table), columns=", ".join(quote(column) for column in columns)
    )
    row_sql = "(" + ", ".join(["%s"] * len(columns)) + ")"
    per_statement = max(1, min(MAX_ROWS_PER_STATEMENT, _max_parameters() // len(columns)))
    iterator, count = iter(rows), 0
    with connection.cursor() as cursor:
        while chunk := list(islice(iterator, per_statement)):
            cursor.execute(head + ", ".join([row_sql] * len(chunk)), [value for row in chunk for value in row])
            count += len(chunk)
    return count


def _copy_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    quote = connection.ops.quote_name
    statement = "COPY {table} ({columns}) FROM STDIN".format(
        table=quote(model._meta.db_table), columns=", ".join(quote(column) for column in columns)
    )
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def db_value(model: type[Model], field: str, value):
    """``value`` as the database expects it for ``model.field`` (e.g. JSON)."""
    return model._meta.get_field(field).get_db_prep_save(value, connection)
