"""How big and how deep a TAB file may be, enforced while it streams in.

Each limit leaves a wide margin over the real corpus: the official TAB files hold
documents of up to about 100,000 characters of text, a few hundred mentions per layer,
at most a dozen layers per document and nesting five levels deep (the 41 documents of
``data/tab``: at most 9,923 characters, 163 mentions in a layer, 10 layers, 196 KB of
JSON). A file beyond a limit is refused with a message naming the limit and where it
was hit; nothing beyond the limit is ever held in memory, except that one JSON string
is read whole before its length can be checked (bounded by ``MAX_FILE_BYTES``).
"""

# The whole file, in bytes (the full TAB corpus is under 100 MB).
MAX_FILE_BYTES = 512 * 1024 * 1024
# Objects and lists inside one another, counting the top-level list (TAB needs 5:
# list > document > annotations > layer > entity_mentions > mention > related_mentions).
MAX_DEPTH = 32
# Characters of any one string or key (20 times the longest real text).
MAX_STRING_CHARS = 2_000_000
# All characters of the strings and keys of one document.
MAX_DOCUMENT_CHARS = 20_000_000
# JSON values (objects, lists, strings, numbers, ...) in one document.
MAX_DOCUMENT_VALUES = 2_000_000
# Mentions in one layer.
MAX_MENTIONS_PER_LAYER = 20_000
# Layers (annotators) in one document.
MAX_LAYERS_PER_DOCUMENT = 200
# Characters of a doc_id, entity_mention_id or entity_id (the real ones have under 30).
MAX_ID_LENGTH = 200
