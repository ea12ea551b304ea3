"""Model archives in the default storage: stored once by the training's worker, fetched
by every worker into its own cache (checked against the recorded SHA-256, unpacked
safely), reused once there; a model that cannot be fetched is refused, naming it, on the
filesystem storage and on a real S3 server (moto's, over HTTP)."""

import hashlib
import io
import shutil
import tarfile

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
    assert list(settings.SANITIZE_MODEL_CACHE.iterdir()) == []  # no temporary left behind


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
    assert [p.name for p in settings.SANITIZE_MODEL_CACHE.iterdir()] == [model.checksum]  # no temporary left


def test_the_engine_is_named_without_downloading_and_refused_once_an_archive_is_gone(corpus, caches, s3_storage):
    from django.utils import timezone

    from annotation.services.engine import engine_version
    from tests.support.archived_models import archived_model

    promoted = archived_model(corpus, "recognizer", 1, is_active=True, activated_at=timezone.now())
    assert engine_version(corpus).startswith("recognizer v1") and s3_storage.gets(promoted.archive) == 0
    s3_storage.client().delete_object(Bucket=s3_storage.bucket, Key=promoted.archive)
    with pytest.raises(ModelUnavailable, match="recognizer v1 model .*: the archive is missing from the storage"):
        engine_version(corpus)
