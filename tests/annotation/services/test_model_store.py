"""Model archives in the default storage: stored once by the training's worker, fetched
by every worker into its own cache (checked against the recorded SHA-256, unpacked
safely), reused once there; a model that cannot be fetched is refused, naming it, on the
filesystem storage and on a real S3 server (moto's, over HTTP)."""

import hashlib
import io
import os
import shutil
import tarfile
import threading
import time

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotation.models import TrainedModel
from annotation.services import model_store
from annotation.services.model_store import ModelUnavailable

pytestmark = pytest.mark.django_db

FILES = {"meta.json": '{"name": "ner"}', "ner/model": "weights \u00e9", "vocab/strings.json": "[]"}


@pytest.fixture
def caches(settings, tmp_path):
    """Two workers' caches on this machine: ``use("b")`` makes this process worker B."""
    settings.SANITIZE_MODEL_ROOT = tmp_path / "scratch"
    settings.SANITIZE_MODEL_CACHE = tmp_path / "cache-a"

    def use(worker: str):
        settings.SANITIZE_MODEL_CACHE = tmp_path / f"cache-{worker}"
        return settings.SANITIZE_MODEL_CACHE

    return use


def trained_directory(root, files=FILES):
    directory = root / "corpus-1" / "recognizer" / "v1"
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def new_model(corpus, kind="recognizer", version=1):
    return TrainedModel.objects.create(corpus=corpus, kind=kind, version=version, status="succeeded")


def stored_bytes(name):
    with default_storage.open(name, "rb") as fh:
        return fh.read()


def read_tree(directory):
    return {
        str(path.relative_to(directory)): path.read_text(encoding="utf-8")
        for path in directory.rglob("*")
        if path.is_file()
    }


def test_a_model_directory_goes_through_the_filesystem_storage_and_back(corpus, caches, settings):
    model = new_model(corpus)
    scratch = trained_directory(settings.SANITIZE_MODEL_ROOT)
    name = model_store.store(model, scratch)
    assert name == model.archive and name.startswith(f"models/corpus-{corpus.pk}/recognizer/v1-")
    assert name.endswith(f"-{model.checksum[:12]}.tar.gz") and model.path == "model"
    assert model.checksum == hashlib.sha256(stored_bytes(name)).hexdigest()
    assert not scratch.exists()  # the scratch copy is gone once archived

    path = model_store.local_path(model)
    assert path == settings.SANITIZE_MODEL_CACHE / model.checksum / "model"
    assert read_tree(path) == FILES


def test_a_single_file_model_keeps_its_name_and_the_same_model_gives_the_same_archive(corpus, caches, settings):
    first, second = new_model(corpus, "masking", 1), new_model(corpus, "masking", 2)
    for model in (first, second):
        target = settings.SANITIZE_MODEL_ROOT / f"v{model.version}"
        target.mkdir(parents=True)
        (target / "classifier.joblib").write_bytes(b"\x00joblib bytes")
        model_store.store(model, target / "classifier.joblib")
    assert first.path == "classifier.joblib" and first.checksum == second.checksum  # deterministic packing
    assert first.archive != second.archive
    assert model_store.local_path(first).read_bytes() == b"\x00joblib bytes"


def test_on_s3_a_second_worker_gets_the_same_files_and_each_downloads_once(corpus, caches, settings, s3_storage):
    model = new_model(corpus)
    model_store.store(model, trained_directory(settings.SANITIZE_MODEL_ROOT))
    head = s3_storage.client().head_object(Bucket=s3_storage.bucket, Key=model.archive)
    assert head["ContentLength"] == len(stored_bytes(model.archive))
    before = s3_storage.gets(model.archive)  # stored_bytes read it once

    a = model_store.local_path(model)
    assert read_tree(a) == FILES and s3_storage.gets(model.archive) == before + 1
    assert model_store.local_path(model) == a and s3_storage.gets(model.archive) == before + 1  # the cache serves it

    caches("b")
    b = model_store.local_path(model)
    assert b != a and str(b).startswith(str(settings.SANITIZE_MODEL_CACHE))
    assert read_tree(b) == FILES and s3_storage.gets(model.archive) == before + 2


def test_an_altered_archive_is_refused_naming_the_model_and_nothing_is_cached(corpus, caches, settings):
    model = new_model(corpus)
    model_store.store(model, trained_directory(settings.SANITIZE_MODEL_ROOT))
    with default_storage.open(model.archive, "wb") as fh:
        fh.write(b"not the archive that was stored")
    with pytest.raises(ModelUnavailable) as refused:
        model_store.local_path(model)
    message = refused.value.message
    assert f"The recognizer v1 model of corpus {corpus.name} cannot be used on this host" in message
    assert model.archive in message and f"not the recorded {model.checksum}" in message
    assert not (settings.SANITIZE_MODEL_CACHE / model.checksum).exists()
    assert [p.name for p in settings.SANITIZE_MODEL_CACHE.iterdir()] == [".locks"]  # no temporary left behind


def test_a_missing_archive_is_refused_on_s3(corpus, caches, settings, s3_storage):
    model = new_model(corpus)
    model_store.store(model, trained_directory(settings.SANITIZE_MODEL_ROOT))
    s3_storage.client().delete_object(Bucket=s3_storage.bucket, Key=model.archive)
    with pytest.raises(ModelUnavailable, match=r"recognizer v1 model .*: the archive is missing from the storage"):
        model_store.local_path(model)


def _tar_with(member_name: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo(member_name)
        info.size = 4
        tar.addfile(info, io.BytesIO(b"evil"))
    return out.getvalue()


@pytest.mark.parametrize("member", ["../escaped", "model/../../escaped", "/tmp/escaped-absolute"])
def test_an_archive_with_a_member_outside_its_directory_is_refused(corpus, caches, settings, tmp_path, member):
    content = _tar_with(member)
    name = default_storage.save("models/crafted.tar.gz", ContentFile(content))
    model = TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=1, status="succeeded",
        archive=name, checksum=hashlib.sha256(content).hexdigest(), path="model",
    )  # fmt: skip
    with pytest.raises(ModelUnavailable, match=f"the archive holds an unsafe member '{member}'"):
        model_store.local_path(model)
    assert not (tmp_path / "escaped").exists() and not (settings.SANITIZE_MODEL_CACHE.parent / "escaped").exists()


def test_a_row_without_an_archive_is_used_from_the_model_root_only_where_it_is(corpus, caches, settings):
    legacy = TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=1, status="succeeded", path="corpus-1/recognizer/v1"
    )
    with pytest.raises(ModelUnavailable, match="trained before model archives"):
        model_store.local_path(legacy)
    directory = trained_directory(settings.SANITIZE_MODEL_ROOT)
    assert model_store.local_path(legacy) == directory


def test_a_worker_that_loses_the_race_to_unpack_uses_the_copy_that_landed_first(corpus, caches, settings, monkeypatch):
    model = new_model(corpus)
    model_store.store(model, trained_directory(settings.SANITIZE_MODEL_ROOT))
    final = settings.SANITIZE_MODEL_CACHE / model.checksum
    unpack = model_store._extract

    def another_process_lands_first(model, archive, destination):
        unpack(model, archive, destination)
        shutil.copytree(destination, final)  # the other process's rename happened meanwhile
        (final / "model" / "landed-first").write_text("theirs")

    monkeypatch.setattr(model_store, "_extract", another_process_lands_first)
    path = model_store.local_path(model)
    assert path == final / "model" and (path / "landed-first").read_text() == "theirs"
    assert read_tree(path) == {**FILES, "landed-first": "theirs"}
    assert {p.name for p in settings.SANITIZE_MODEL_CACHE.iterdir()} == {model.checksum, ".locks"}  # no temporary


def test_the_engine_is_named_without_downloading_and_refused_once_an_archive_is_gone(corpus, caches, s3_storage):
    from django.utils import timezone

    from annotation.services.engine import engine_version
    from tests.support.archived_models import archived_model

    promoted = archived_model(corpus, "recognizer", 1, is_active=True, activated_at=timezone.now())
    assert engine_version(corpus).startswith("recognizer v1") and s3_storage.gets(promoted.archive) == 0
    s3_storage.client().delete_object(Bucket=s3_storage.bucket, Key=promoted.archive)
    with pytest.raises(ModelUnavailable, match="recognizer v1 model .*: the archive is missing from the storage"):
        engine_version(corpus)


def _stored(corpus, version, text):
    """A stored model whose content (and so checksum) is its own."""
    from django.conf import settings

    model = new_model(corpus, version=version)
    model_store.store(model, trained_directory(settings.SANITIZE_MODEL_ROOT, {"meta.json": text}))
    model.save()
    return model


def cached(settings):
    return {path.name for path in settings.SANITIZE_MODEL_CACHE.iterdir() if not path.name.startswith(".")}


def test_the_cache_keeps_the_most_recently_used_models_and_drops_the_older_ones(corpus, caches, settings):
    settings.SANITIZE_MODEL_CACHE_KEEP = 2
    first, second, third = (_stored(corpus, version, f"model {version}") for version in (1, 2, 3))
    model_store.local_path(first)
    model_store.local_path(second)
    for model, age in ((first, 300), (second, 200)):  # first fetched earlier than second
        stamp = (settings.SANITIZE_MODEL_CACHE / model.checksum).stat().st_mtime - age
        os.utime(settings.SANITIZE_MODEL_CACHE / model.checksum, (stamp, stamp))
    assert model_store.local_path(first).exists()  # used again: now the newer of the two
    model_store.local_path(third)
    assert cached(settings) == {first.checksum, third.checksum}  # second, used longest ago, went

    settings.SANITIZE_MODEL_CACHE_KEEP = 1
    model_store.local_path(second)  # fetched again, and kept: never the one just fetched
    assert cached(settings) == {second.checksum}
    assert (model_store.local_path(second) / "meta.json").read_text() == "model 2"


def test_a_model_another_process_is_fetching_is_not_evicted(corpus, caches, settings):
    settings.SANITIZE_MODEL_CACHE_KEEP = 1
    first, second = _stored(corpus, 1, "model 1"), _stored(corpus, 2, "model 2")
    model_store.local_path(first)
    with model_store._locked(first.checksum):  # another process of this host holds it
        model_store.local_path(second)
    assert cached(settings) == {first.checksum, second.checksum}


def test_a_worker_waits_for_the_one_fetching_the_same_model_and_keeps_its_copy(corpus, caches, settings, monkeypatch):
    model = _stored(corpus, 1, "model 1")
    final = settings.SANITIZE_MODEL_CACHE / model.checksum
    downloads = []
    download = model_store._download
    monkeypatch.setattr(model_store, "_download", lambda *args: downloads.append(1) or download(*args))
    holding = threading.Event()

    def the_other_process():
        with model_store._locked(model.checksum):
            holding.set()
            time.sleep(0.3)  # this worker finds no copy meanwhile, then waits on the lock
            (final / "model").mkdir(parents=True)
            (final / "model" / "landed").write_text("theirs")

    other = threading.Thread(target=the_other_process)
    other.start()
    holding.wait(5)
    path = model_store.local_path(model)
    other.join()
    assert (path / "landed").read_text() == "theirs" and downloads == []  # neither removed nor fetched again


@pytest.mark.parametrize("storage", ["filesystem", "s3"])
def test_archives_a_killed_attempt_stored_without_recording_them_are_deleted(
    corpus, caches, settings, request, storage
):
    if storage == "s3":
        request.getfixturevalue("s3_storage")
    model = _stored(corpus, 1, "recorded")
    orphan = TrainedModel(pk=model.pk, corpus=corpus, kind="recognizer", version=1)  # killed before finishing
    model_store.store(orphan, trained_directory(settings.SANITIZE_MODEL_ROOT, {"meta.json": "killed attempt"}))
    other_version = _stored(corpus, 12, "v12 is another version")
    assert orphan.archive != model.archive and default_storage.exists(orphan.archive)

    assert model_store.discard_unreferenced(model) == [orphan.archive]
    assert not default_storage.exists(orphan.archive)
    assert default_storage.exists(model.archive) and default_storage.exists(other_version.archive)
    TrainedModel.objects.filter(pk=model.pk).update(archive="")  # a row that records none: all of v1 go
    assert model_store.discard_unreferenced(model) == [model.archive]
    assert default_storage.exists(other_version.archive)
