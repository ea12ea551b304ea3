from django.urls import path, re_path

from . import confirm_views, views

urlpatterns = [
    path("", views.workspace, name="workspace"),
    path("entities/<int:entity_id>/", views.entity_panel, name="ws-entity"),
    path("entities/<int:entity_id>/decision/", views.set_decision, name="ws-decision"),
    path("entities/<int:entity_id>/merge/", views.merge_entities, name="ws-merge"),
    path("entities/<int:entity_id>/occurrences/", views.annotate_occurrences, name="ws-occurrences"),
    path("mentions/", views.create_mention, name="ws-create"),
    path("mentions/<int:mention_id>/", views.update_mention, name="ws-update"),
    path("mentions/<int:mention_id>/delete/", views.delete_mention, name="ws-delete"),
    path("mentions/<int:mention_id>/split/", views.split_mention, name="ws-split"),
    path("undo/", views.undo_last, name="ws-undo"),
    path("confirm/", confirm_views.confirm_dialog, name="ws-confirm-dialog"),
    path("confirm/do/", confirm_views.confirm, name="ws-confirm"),
    path("masked/", confirm_views.masked_review, name="masked-review"),
    re_path(r"^masked\.(?P<extension>txt|html)$", confirm_views.masked_download, name="masked-download"),
    path("reopen/", confirm_views.reopen, name="ws-reopen"),
]
