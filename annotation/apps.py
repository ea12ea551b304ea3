from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "TAB annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Load the project's Celery app so that @shared_task binds to it in every
        # process that starts Django (web, management commands, tests).
        import sanitize_app.celery  # noqa: F401

        from . import tasks
        from .services import review
        from .signals import layer_changed

        layer_changed.connect(tasks.rerender_after_change, dispatch_uid="masked-review-rerender")
        layer_changed.connect(review.assign_after_confirmation, dispatch_uid="review-assign-after-confirmation")
