// The team and assignment pages: copy a one-time link, select documents.
(() => {
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.copy");
    if (!button) return;
    const field = document.getElementById(button.dataset.copy);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      // No clipboard permission (plain http): the text is selected, Ctrl+C copies it.
      document.execCommand("copy");
    }
    button.textContent = "Copied";
  });

  // "Select all on this page" ticks the visible boxes; "all N matching" sends the filter
  // instead of ids, so the boxes are shown ticked and locked while it is on.
  const form = document.getElementById("assign-form");
  if (!form) return;
  const boxes = () => [...form.querySelectorAll("input[name=documents]")];
  const pageBox = document.getElementById("select-page");
  const allBox = document.getElementById("all-matching");
  const count = document.getElementById("selected-count");
  const update = () => {
    if (!count) return;
    const chosen = allBox && allBox.checked ? Number(allBox.dataset.total) : boxes().filter((b) => b.checked).length;
    count.textContent = `${chosen} document${chosen === 1 ? "" : "s"} selected`;
  };
  pageBox?.addEventListener("change", () => {
    boxes().forEach((box) => { box.checked = pageBox.checked; });
    update();
  });
  allBox?.addEventListener("change", () => {
    boxes().forEach((box) => { box.disabled = allBox.checked; if (allBox.checked) box.checked = true; });
    if (pageBox) pageBox.disabled = allBox.checked;
    update();
  });
  form.addEventListener("change", (event) => { if (event.target.name === "documents") update(); });
  const strategy = () => form.querySelector("input[name=strategy]:checked")?.value;
  const showStrategy = () => {
    form.querySelectorAll("[data-strategy]").forEach((part) => { part.hidden = part.dataset.strategy !== strategy(); });
  };
  form.addEventListener("change", (event) => { if (event.target.name === "strategy") showStrategy(); });
  showStrategy();
  update();
})();
