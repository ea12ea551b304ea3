from django.urls import path, re_path

from .. import review_views
from . import confirm_views, risk_views, views

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
    path("risk/", risk_views.risk_panel, name="ws-risk"),
    path("confirm/", confirm_views.confirm_dialog, name="ws-confirm-dialog"),
    path("confirm/do/", confirm_views.confirm, name="ws-confirm"),
    path("masked/", confirm_views.masked_review, name="masked-review"),
    re_path(r"^masked\.(?P<extension>txt|html)$", confirm_views.masked_download, name="masked-download"),
    path("reopen/", confirm_views.reopen, name="ws-reopen"),
    path("review/", review_views.review_start, name="review-start"),
    path("review/panel/", review_views.review_panel, name="review-panel"),
    path("review/notes/", review_views.note_new, name="review-note-new"),
    path("review/notes/<int:thread_id>/reply/", review_views.note_reply, name="review-note-reply"),
    path("review/notes/<int:thread_id>/settle/", review_views.note_settle, name="review-note-settle"),
    path("review/confirm/", review_views.review_confirm, name="review-confirm"),
]
