// The review panel's note form follows the entity selected in the workspace: click a
// mention, then write the note about it.
document.body.addEventListener("htmx:afterSettle", () => {
  const panel = document.getElementById("entity-panel");
  const select = document.getElementById("note-entity");
  const entity = panel && panel.dataset.entity;
  if (!select || !entity) return;
  if ([...select.options].some((option) => option.value === entity)) select.value = entity;
});

// A sign-off carries the layer version this page shows (the workspace keeps it current
// in #ws-state): the server refuses it when the layer changed since, so nobody signs a
// version they have not seen.
document.body.addEventListener("htmx:configRequest", (event) => {
  const state = document.getElementById("ws-state");
  const form = event.detail.elt.closest && event.detail.elt.closest("#review-panel");
  if (state && form) event.detail.parameters.layer_version = state.dataset.version;
});
