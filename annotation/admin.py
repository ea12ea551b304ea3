"""Django admin: managing accounts (e.g. activating imported annotators), corpora and
memberships. Annotations are read-only here: they change only through the services."""

from django.contrib import admin

from .models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Document, ImportJob, Mention, Release


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(admin.TabularInline):
    model = CorpusMembership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "guidelines_version", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Document)
class DocumentAdmin(ReadOnlyAdmin):
    list_display = ["doc_id", "corpus", "person_to_protect", "dataset_type", "text_length"]
    list_filter = ["corpus", "dataset_type"]
    search_fields = ["doc_id", "person_to_protect"]


@admin.register(AnnotationLayer)
class LayerAdmin(ReadOnlyAdmin):
    list_display = ["document", "annotator", "status", "version", "updated_at"]
    list_filter = ["status", "document__corpus"]
    search_fields = ["document__doc_id", "annotator__username"]


@admin.register(Mention)
class MentionAdmin(ReadOnlyAdmin):
    list_display = ["tab_mention_id", "span_text", "entity_type", "identifier_type", "edit_type"]
    list_filter = ["entity_type", "identifier_type", "layer__document__corpus"]
    search_fields = ["tab_mention_id", "span_text"]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor", "action", "corpus", "target"]
    list_filter = ["action", "corpus"]
    search_fields = ["target", "actor__username"]


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    list_display = ["original_name", "corpus", "status", "created_at", "finished_at"]
    list_filter = ["status"]


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdmin):
    list_display = ["id", "corpus", "strategy", "source", "status", "created_at", "finished_at"]
    list_filter = ["status", "strategy", "corpus"]
