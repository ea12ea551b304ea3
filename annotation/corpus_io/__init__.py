"""Getting corpora in and out: the TAB JSON format (exactly), plain-text folders, and
the masked-spans format of the official TAB evaluation script.

A small pipeline in the manner of doccano's data_import/data_export:
``tab_reader`` streams documents out of a JSON list -> ``tab_parser`` validates each
into the plain records of ``records`` -> ``builder`` bulk-writes them. ``tab_writer``
mirrors it on the way out.
"""
