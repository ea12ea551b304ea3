// The review panel's note form follows the entity selected in the workspace: click a
// mention, then write the note about it.
document.body.addEventListener("htmx:afterSettle", () => {
  const panel = document.getElementById("entity-panel");
  const select = document.getElementById("note-entity");
  const entity = panel && panel.dataset.entity;
  if (!select || !entity) return;
  if ([...select.options].some((option) => option.value === entity)) select.value = entity;
});
