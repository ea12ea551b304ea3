/* The side column on a narrow screen (below 1000 px; the CSS decides): a drawer at the
 * bottom of the window with tabs, the entity panel, the entity list and the review
 * panel one at a time, and a button that folds it down to its tab bar. So the panel is
 * one click away instead of below the whole text. On a wide screen the tab bar is
 * hidden and every section shows, as before.
 */

const side = () => document.getElementById("ws-side");

/** Show one tab of the drawer (panel, entities, review) and unfold it. */
export function showSideTab(name, { unfold = true } = {}) {
  const column = side();
  if (!column || !column.querySelector(`[data-side-tab="${name}"]`)) return;
  column.dataset.tab = name;
  column.querySelectorAll("[data-side-tab]").forEach((tab) => {
    tab.setAttribute("aria-selected", String(tab.dataset.sideTab === name));
  });
  if (unfold) setFolded(false);
}

function setFolded(folded) {
  const column = side();
  column.classList.toggle("folded", folded);
  const button = column.querySelector("[data-side-fold]");
  if (button) {
    button.setAttribute("aria-expanded", String(!folded));
    button.textContent = folded ? "▴" : "▾";
  }
}

export function startDrawer() {
  document.addEventListener("click", (event) => {
    const target = event.target;
    const tab = target.closest("[data-side-tab]");
    if (tab) return showSideTab(tab.dataset.sideTab);
    if (target.closest("[data-side-fold]")) return setFolded(!side().classList.contains("folded"));
    // Picking an entity (in the text or the list) shows its panel, if the drawer is open.
    if (target.closest("#doc-text mark[data-m], .ent-btn")) showSideTab("panel", { unfold: false });
  });
}
