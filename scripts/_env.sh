# Shared by scripts/demo and scripts/test: a local virtual environment with the
# project installed, refreshed whenever pyproject.toml changes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 13) else 1)'; then
    echo "Python 3.11 or 3.12 is needed (found $("$PYTHON" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "Creating the virtual environment in .venv ..."
    "$PYTHON" -m venv .venv
fi
STAMP=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$STAMP" ]; then
    echo "Installing the project and its dependencies into .venv (first run: about a minute) ..."
    # (sed drops this machine's notes about local package mirrors; pip's exit status counts)
    .venv/bin/python -m pip install --quiet --upgrade pip 2>&1 | sed '/is ignored: it is neither a file nor a directory/d'
    .venv/bin/python -m pip install --quiet -e ".[dev]" 2>&1 | sed '/is ignored: it is neither a file nor a directory/d'

    rm -f .venv/.installed-* && touch "$STAMP"
fi
export PATH="$ROOT/.venv/bin:$PATH"
