"""Settings modules: ``development`` (the embedded default), ``production`` and ``test``.

All of them read their configuration from environment variables (see ``env.py``).
"""
