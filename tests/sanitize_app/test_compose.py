"""docker-compose.yml has the scaled-out shape: migrations once before anything else
starts, an object store instead of shared volumes, replicated workers. Read as YAML (no
Docker here); `docker compose config` is the fuller check an operator runs."""

import yaml

from tests.conftest import REPO

APP_SERVICES = ("web", "worker", "trainer", "beat")


def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_migrations_run_once_in_a_one_shot_service_that_every_app_service_waits_for():
    services = compose()["services"]

    assert services["migrate"]["command"] == "python manage.py migrate --noinput"
    assert services["migrate"]["restart"] == "no"
    for name in APP_SERVICES:
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert "migrate" not in services[name]["command"], name


def test_files_live_in_minio_and_no_app_container_mounts_a_shared_volume():
    spec = compose()
    services = spec["services"]

    assert services["minio"]["image"].startswith("minio/minio")
    assert services["createbucket"]["restart"] == "no"
    assert "mc mb" in services["createbucket"]["command"][0]
    for name in ("migrate", *APP_SERVICES):
        environment = services[name]["environment"]
        assert environment["SANITIZE_STORAGE"] == "s3", name
        assert environment["AWS_S3_ENDPOINT_URL"] == "http://minio:9000", name
        assert "volumes" not in services[name], name
    assert set(spec["volumes"]) == {"pgdata", "objects"}


def test_workers_are_replicated_with_a_container_local_model_cache_and_one_beat():
    services = compose()["services"]

    assert services["worker"]["deploy"]["replicas"] >= 2
    assert "--queues=training" in services["trainer"]["command"]
    assert "training" not in services["worker"]["command"]
    for name in ("worker", "trainer"):
        assert services[name]["environment"]["SANITIZE_MODEL_CACHE"].startswith("/app/var/"), name
    assert "deploy" not in services["beat"]
    assert services["beat"]["command"].startswith("celery -A sanitize_app beat")
