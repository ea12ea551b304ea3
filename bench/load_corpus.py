"""The data of ``bench/load.py``: one corpus where each simulated annotator holds one
layer in progress, and the credentials their clients use.

Run by ``bench/load.py`` in a subprocess whose working directory is the application
under test (``--app-dir``), so the same data can be built for two versions of the app:

    python bench/load_corpus.py --app-dir . --annotators 50 --out /tmp/load.json

The layers are real TAB annotations (``data/tab/tab_dev_sample.json``), one document
copy per annotator, imported through the importer and set back to "in progress" so
that decisions are allowed. Sessions and API tokens are created directly: the bench
measures annotation requests, not logins.
"""

import argparse
import io
import json
import os
import secrets
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"


def synthetic_tab(annotators: int) -> bytes:
    """One copy of a real document per annotator, with its first layer renamed."""
    documents = json.loads(SAMPLE.read_text(encoding="utf-8"))
    copies = []
    for index in range(annotators):
        source = documents[index % len(documents)]
        name = f"load{index:03d}"
        layer = next(iter(source["annotations"].values()))
        mentions = [
            {**m, "entity_mention_id": f"{m['entity_mention_id']}-{name}", "entity_id": f"{m['entity_id']}-{name}"}
            for m in layer["entity_mentions"]
        ]
        for mention in mentions:
            mention.pop("related_mentions", None)
        copies.append(
            {
                "doc_id": f"{source['doc_id']}-{name}",
                "text": source["text"],
                "dataset_type": source.get("dataset_type", "dev"),
                "task": source.get("task", ""),
                "meta": source.get("meta", {}),
                "quality_checked": [],
                "annotations": {name: {"entity_mentions": mentions}},
            }
        )
    return json.dumps(copies).encode()


def build(annotators: int) -> dict:
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from annotation.enums import LayerStatus, Role
    from annotation.models import AnnotationLayer, Corpus
    from annotation.services import corpora
    from annotation.services.corpus_import import import_tab

    call_command("migrate", verbosity=0)
    corpus = Corpus.objects.create(name="Load")
    import_tab(io.BytesIO(synthetic_tab(annotators)), corpus, actor=None, source="load")
    users = []
    for layer in AnnotationLayer.objects.filter(document__corpus=corpus).select_related("annotator"):
        user = layer.annotator
        user.is_active = True
        user.set_password(secrets.token_urlsafe(16))
        user.save()
        corpora.add_member(corpus, user, Role.ANNOTATOR, actor=None)
        AnnotationLayer.objects.filter(pk=layer.pk).update(status=LayerStatus.IN_PROGRESS)
        session = SessionStore()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        users.append(
            {
                "username": user.username,
                "layer": layer.pk,
                "version": AnnotationLayer.objects.get(pk=layer.pk).version,
                "entities": list(layer.entities.order_by("id").values_list("id", flat=True)),
                "session": session.session_key,
                "token": Token.objects.create(user=user).key,
            }
        )
    return {"users": sorted(users, key=lambda u: u["username"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app-dir", type=Path, default=REPO)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(args.app_dir.resolve()))
    os.chdir(args.app_dir)
    import django

    django.setup()
    args.out.write_text(json.dumps(build(args.annotators)))


if __name__ == "__main__":
    main()
