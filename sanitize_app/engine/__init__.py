"""The sanitization engine: plain Python with no Django import, so that it can be
tested and reused on its own. The ``annotation`` app is its client."""
