from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "TAB annotation"
    default_auto_field = "django.db.models.BigAutoField"
