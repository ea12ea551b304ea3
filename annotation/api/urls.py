from django.urls import include, path
from rest_framework.routers import DefaultRouter

from .docs import SchemaView, SwaggerView
from .views_annotations import EntityViewSet, MentionViewSet
from .views_audit import AuditEventViewSet
from .views_corpora import CorpusViewSet, DocumentViewSet, ImportJobViewSet, MembershipViewSet
from .views_layers import LayerViewSet
from .views_preannotation import PreannotationRunViewSet
from .views_reidentification import ReidentificationRunViewSet
from .views_releases import ReleaseDocumentViewSet, ReleaseViewSet
from .views_review import LayerReviewViewSet, ReviewNoteViewSet, ReviewPairViewSet
from .views_training import TrainedModelViewSet

router = DefaultRouter()
router.register("corpora", CorpusViewSet, basename="corpus")
router.register("memberships", MembershipViewSet, basename="membership")
router.register("documents", DocumentViewSet, basename="document")
router.register("layers", LayerViewSet, basename="layer")
router.register("mentions", MentionViewSet, basename="mention")
router.register("entities", EntityViewSet, basename="entity")
router.register("audit-events", AuditEventViewSet, basename="auditevent")
router.register("import-jobs", ImportJobViewSet, basename="importjob")
router.register("preannotation-runs", PreannotationRunViewSet, basename="preannotationrun")
router.register("layer-reviews", LayerReviewViewSet, basename="layerreview")
router.register("review-notes", ReviewNoteViewSet, basename="reviewnote")
router.register("review-pairs", ReviewPairViewSet, basename="reviewpair")
router.register("trained-models", TrainedModelViewSet, basename="trainedmodel")
router.register("releases", ReleaseViewSet, basename="release")
router.register("release-documents", ReleaseDocumentViewSet, basename="releasedocument")
router.register("reidentification-runs", ReidentificationRunViewSet, basename="reidentificationrun")

urlpatterns = [
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]
