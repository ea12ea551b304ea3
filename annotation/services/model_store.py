"""Trained models as archives in the default storage (object storage when web and workers
run on different hosts), unpacked by each worker into its own cache.

A training writes its model under ``SANITIZE_MODEL_ROOT`` (a scratch directory), then
``store`` packs it into one ``.tar.gz`` in the default storage and records the archive's
name and SHA-256 on the ``TrainedModel`` row; the scratch copy is removed. A worker that
needs the model calls ``local_path``: the archive is downloaded once into this host's
``SANITIZE_MODEL_CACHE/<checksum>/``, checked against the recorded checksum, unpacked, and
reused afterwards (``SANITIZE_MODEL_CACHE_KEEP`` most recently used models are kept,
older ones evicted after each fetch). A model that cannot be fetched raises
``ModelUnavailable``, naming the model, the archive and why: the pre-annotation refuses
to run rather than fall back to rules while saying it used the model.

A training killed between storing its archive and recording it leaves an archive no row
names: ``discard_unreferenced`` deletes those of the model's version (called when the
training is taken up again and when it is failed).

Rows trained before archives existed have a ``path`` relative to ``SANITIZE_MODEL_ROOT``
and no archive: they are used from there when that directory exists on this host
(a one-host installation keeps working), and refused otherwise."""

import contextlib
import fcntl
import gzip
import hashlib
import logging
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage

from ..models import TrainedModel
from .errors import DomainError

logger = logging.getLogger(__name__)

CHUNK = 1024 * 1024
# The member a directory model is packed under (a single-file model keeps its file name).
DIRECTORY_MEMBER = "model"


class ModelUnavailable(DomainError):
    """A trained model this host cannot use (archive missing, unreadable or altered)."""

    def __init__(self, model: TrainedModel, reason: str):
        archive = f"archive {model.archive!r}" if model.archive else "no archive"
        super().__init__(
            f"The {model.label} model of corpus {model.corpus} cannot be used on this host ({archive}): {reason}.",
            field="model",
        )
        self.model_id = model.pk


# --- Storing --------------------------------------------------------------------------


def archive_name(model: TrainedModel, checksum: str) -> str:
    return f"models/corpus-{model.corpus_id}/{model.kind}/v{model.version}-{checksum[:12]}.tar.gz"


def store(model: TrainedModel, directory_or_file: Path) -> str:
    """Pack the trained model at ``directory_or_file`` into the default storage and set
    ``model.archive``, ``model.checksum`` and ``model.path`` (saved by the caller, with
    the training's result). The scratch copy is removed once uploaded. Returns the
    archive's name."""
    source = Path(directory_or_file)
    if not source.exists():
        raise FileNotFoundError(f"The trained model {model.label} was not written to {source}.")
    member = DIRECTORY_MEMBER if source.is_dir() else source.name
    with tempfile.TemporaryFile(dir=source.parent) as packed:  # beside the model: a disk with room for it
        _pack(source, member, packed)
        packed.seek(0)
        checksum = _sha256(packed)
        packed.seek(0)
        name = default_storage.save(archive_name(model, checksum), File(packed, name=f"{member}.tar.gz"))
    model.archive, model.checksum, model.path = name, checksum, member
    if source.is_dir():
        shutil.rmtree(source, ignore_errors=True)
    else:
        source.unlink(missing_ok=True)
    return name


def discard(model: TrainedModel) -> None:
    """Delete the model's archive (a training whose result is not kept). A storage that
    fails here leaves an unreferenced archive, logged: the training's outcome matters more."""
    if model.archive:
        _delete(model.archive, model)


def _delete(name: str, model: TrainedModel) -> None:
    try:
        default_storage.delete(name)
    except Exception:  # noqa: BLE001 - see ``discard``
        logger.exception("Could not delete the archive %s of %s", name, model)


def discard_unreferenced(model: TrainedModel) -> list[str]:
    """Delete the archives of the model's version that its row does not name (stored by
    an attempt killed before it recorded them; an attempt still alive that was declared
    lost throws its archive away anyway). Returns the names deleted."""
    folder, prefix = archive_name(model, "").rsplit("/", 1)
    prefix = prefix.split("-", 1)[0] + "-"  # "v<version>-": v1- never matches v12-
    recorded = TrainedModel.objects.filter(pk=model.pk).values_list("archive", flat=True).first() or ""
    try:
        _, files = default_storage.listdir(folder)
    except FileNotFoundError:  # the filesystem storage: nothing stored for this kind yet
        return []
    deleted = []
    for name in files:
        path = f"{folder}/{name}"
        if name.startswith(prefix) and path != recorded:
            _delete(path, model)
            deleted.append(path)
    return deleted


def _pack(source: Path, member: str, out) -> None:
    """A tar.gz of ``source`` under ``member``: members sorted, times and owners zeroed,
    so the same model gives the same bytes (and checksum)."""
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path, name in _members(source, member):
                info = tarfile.TarInfo(name)
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                if path.is_dir():
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(info)
                else:
                    info.size, info.mode = path.stat().st_size, 0o644
                    with path.open("rb") as content:
                        tar.addfile(info, content)


def _members(source: Path, member: str) -> Iterator[tuple[Path, str]]:
    yield source, member
    if source.is_dir():
        for path in sorted(source.rglob("*")):
            yield path, str(PurePosixPath(member, *path.relative_to(source).parts))


# --- Fetching -------------------------------------------------------------------------


def check_stored(model: TrainedModel) -> None:
    """Raise ModelUnavailable when the model's archive is not in the storage (one HEAD
    request, nothing downloaded: for a host that names the model but does not run it)."""
    try:
        stored = not model.archive or default_storage.exists(model.archive)
    except Exception as exc:  # noqa: BLE001 - any storage failure is named, then refused
        raise ModelUnavailable(model, f"the storage could not be asked ({exc.__class__.__name__}: {exc})") from exc
    if not stored:
        raise ModelUnavailable(model, "the archive is missing from the storage")


def cache_root() -> Path:
    return Path(settings.SANITIZE_MODEL_CACHE)


def local_path(model: TrainedModel) -> Path:
    """The model's directory (or file) on this host, downloaded and unpacked into the
    cache on first use. Raises ModelUnavailable when it cannot be fetched."""
    if not model.archive:
        return _legacy_path(model)
    if not model.checksum or not model.path:
        raise ModelUnavailable(model, "its checksum or member name was not recorded")
    unpacked = cache_root() / model.checksum
    target = unpacked / model.path
    if target.exists():
        _touch(unpacked)
        return target
    # One process of this host fetches a model at a time (the others wait, then find it):
    # a copy is never removed while another process renames it into place.
    with _locked(model.checksum):
        if not target.exists():
            if unpacked.exists():  # an incomplete copy (files deleted by hand): fetched again
                shutil.rmtree(unpacked, ignore_errors=True)
            _fetch(model, unpacked)
            if not target.exists():
                raise ModelUnavailable(model, f"the archive holds no {model.path!r}")
        _touch(unpacked)
    evict(keep=unpacked)
    return target


def evict(*, keep: Path | None = None) -> list[str]:
    """Remove the cached models beyond the ``SANITIZE_MODEL_CACHE_KEEP`` most recently
    used (each use touches its folder), never ``keep`` (the one just fetched) nor one
    another process is fetching. Returns the checksums removed."""
    limit = max(1, int(settings.SANITIZE_MODEL_CACHE_KEEP))
    folders = [path for path in cache_root().iterdir() if path.is_dir() and not path.name.startswith(".")]
    folders.sort(key=_last_used, reverse=True)
    if keep is not None and keep in folders:  # first, whatever its time
        folders.remove(keep)
        folders.insert(0, keep)
    removed = []
    for folder in folders[limit:]:
        with _locked(folder.name, wait=False) as held:
            if held:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder.name)
    return removed


@contextlib.contextmanager
def _locked(checksum: str, *, wait: bool = True):
    """An exclusive lock on ``checksum`` among this host's processes (the lock files stay:
    removing one while another process waits on it would give two holders). Yields
    whether it is held (always, when ``wait``)."""
    locks = cache_root() / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / checksum).open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _touch(folder: Path) -> None:
    with contextlib.suppress(OSError):  # evicted meanwhile: the caller fetches it next time
        os.utime(folder)


def _last_used(folder: Path) -> float:
    try:
        return folder.stat().st_mtime
    except OSError:
        return 0.0


def _legacy_path(model: TrainedModel) -> Path:
    path = Path(settings.SANITIZE_MODEL_ROOT) / model.path if model.path else None
    if path is None or not path.exists():
        raise ModelUnavailable(
            model,
            f"it was trained before model archives and {path or 'its directory'} is not on this host; "
            "train it again (or promote a newer version)",
        )
    return path


def _fetch(model: TrainedModel, unpacked: Path) -> None:
    """Download, check and unpack into a temporary directory of the cache, then rename it
    to ``unpacked``: a rename is atomic, so a process racing us either finds the whole
    model or does the same work and keeps whichever copy landed first."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{model.checksum[:12]}-", dir=root))
    try:
        archive = work / "archive.tar.gz"
        _download(model, archive)
        with archive.open("rb") as fh:
            checksum = _sha256(fh)
        if checksum != model.checksum:
            raise ModelUnavailable(
                model, f"its checksum is {checksum}, not the recorded {model.checksum} (altered or corrupted)"
            )
        _extract(model, archive, work / "unpacked")
        try:
            os.rename(work / "unpacked", unpacked)
        except OSError:
            if not unpacked.exists():
                raise  # not another process's copy: a real error
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _download(model: TrainedModel, destination: Path) -> None:
    """Stream the archive to ``destination`` (never whole in memory)."""
    try:
        with default_storage.open(model.archive, "rb") as source, destination.open("wb") as out:
            obj = getattr(source, "obj", None)  # django-storages' S3File: boto3 streams it in parts
            if obj is not None:
                obj.download_fileobj(out)
            else:
                for chunk in source.chunks(CHUNK):
                    out.write(chunk)
    except FileNotFoundError:
        raise ModelUnavailable(model, "the archive is missing from the storage") from None
    except Exception as exc:  # noqa: BLE001 - any storage failure is named, then refused
        raise ModelUnavailable(model, f"the archive could not be read ({exc.__class__.__name__}: {exc})") from exc


def _extract(model: TrainedModel, archive: Path, destination: Path) -> None:
    """Unpack, refusing absolute names and '..' (checked here to name the member, and by
    tarfile's data filter, which also refuses links out of the directory and devices)."""
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                parts = PurePosixPath(member.name).parts
                if member.name.startswith(("/", "\\")) or ".." in parts or not parts:
                    raise ModelUnavailable(model, f"the archive holds an unsafe member {member.name!r}")
            destination.mkdir()
            tar.extractall(destination, filter="data")
    except ModelUnavailable:
        raise
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ModelUnavailable(model, f"the archive could not be unpacked ({exc.__class__.__name__}: {exc})") from exc


def _sha256(fh) -> str:
    digest = hashlib.sha256()
    while chunk := fh.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()
