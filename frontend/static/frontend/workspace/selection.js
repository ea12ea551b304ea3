/* The current entity and mention: outlined in the text and the list, stepped through with
 * keys, and shown in the entity panel.
 *
 * ``seq`` counts the user's selections: an answer may change the selection only if the
 * user has not selected anything since the key press that sent it. The panel follows the
 * current entity with one request at a time (a burst of review keys asks for the last
 * entity only), and a panel drawn for an entity that is no longer current, by that
 * request or in the answer to a write, is not swapped in.
 */

import { $, $$ } from "./dom.js";

export class Selection {
  /** @param panelUrl (entity id) => the URL of the entity's panel */
  constructor(panelUrl) {
    this.panelUrl = panelUrl;
    this.entity = null;
    this.mention = null;
    this.seq = 0;
    this.panelTimer = null;
    this.panelWanted = false;
    this.guardPanel();
  }

  select(entityId, mentionId, options) {
    const opts = Object.assign({ load: true, scroll: false }, options);
    this.seq += 1;
    this.entity = entityId ? String(entityId) : null;
    if (mentionId && String(mentionId) !== "0") this.mention = String(mentionId);
    else if (this.entity) {
      const first = $(`#doc-text mark[data-e="${this.entity}"]`);
      this.mention = first ? first.dataset.m : null;
    }
    if (!this.entity) this.mention = null;
    this.highlight();
    if (opts.scroll && this.mention) this.scrollToMention(this.mention);
    if (opts.load && this.entity) this.loadPanel();
  }

  /** The entity went away (deleted, merged, undone): nothing is current any more. */
  forgetIfGone() {
    if (this.entity && !document.getElementById(`ent-${this.entity}`)) {
      this.entity = null;
      this.mention = null;
    }
  }

  highlight() {
    $$("mark.cur").forEach((mark) => mark.classList.remove("cur", "curm"));
    $$("#entity-list > li.cur").forEach((row) => row.classList.remove("cur"));
    if (!this.entity) return;
    $$(`#doc-text mark[data-e="${this.entity}"]`).forEach((mark) => {
      mark.classList.add("cur");
      if (mark.dataset.m === String(this.mention)) mark.classList.add("curm");
    });
    const row = document.getElementById(`ent-${this.entity}`);
    if (row) row.classList.add("cur");
  }

  scrollToMention(mentionId) {
    const mark = $(`#doc-text mark[data-m="${mentionId}"]`);
    if (mark) mark.scrollIntoView({ block: "center", behavior: "smooth" });
    const row = document.getElementById(`ent-${this.entity}`);
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  /** The rows of the entity list, in document order (only the undecided ones if so filtered). */
  rows() {
    const onlyUndecided = $("#only-undecided") && $("#only-undecided").checked;
    return $$("#entity-list > li").filter(
      (row) => !onlyUndecided || row.classList.contains("undecided") || row.classList.contains("cur")
    );
  }

  step(delta) {
    const rows = this.rows();
    if (!rows.length) return;
    let index = rows.findIndex((row) => row.dataset.e === this.entity);
    index = index < 0 ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + delta));
    this.select(rows[index].dataset.e, rows[index].dataset.first, { scroll: true });
  }

  /** On to the next undecided entity after the current one (in document order, wrapping
   * round); false if none is left. */
  nextUndecided() {
    const rows = this.rows();
    const index = rows.findIndex((row) => row.dataset.e === this.entity);
    for (let i = 1; i <= rows.length; i += 1) {
      const candidate = rows[(index + i + rows.length) % rows.length];
      if (candidate.classList.contains("undecided") && candidate.dataset.e !== this.entity) {
        this.select(candidate.dataset.e, candidate.dataset.first, { scroll: true });
        return true;
      }
    }
    return false;
  }

  stepMention(delta) {
    if (!this.entity) return;
    const ids = [...new Set($$(`#doc-text mark[data-e="${this.entity}"]`).map((mark) => mark.dataset.m))];
    if (!ids.length) return;
    const index = ids.indexOf(this.mention);
    this.select(this.entity, ids[(index + delta + ids.length) % ids.length], { load: false, scroll: true });
  }

  // ---- The entity panel -------------------------------------------------------------
  /** The entity whose panel is shown, if it is the current one (else ""). */
  shownEntity() {
    const panel = document.getElementById("entity-panel");
    return panel && panel.dataset.entity === this.entity ? this.entity : "";
  }

  loadPanel() {
    if (this.panelTimer) {
      this.panelWanted = true;
      return;
    }
    if (this.entity) htmx.ajax("GET", this.panelUrl(this.entity), { target: "#entity-panel", swap: "outerHTML" });
    this.panelTimer = setTimeout(() => {
      this.panelTimer = null;
      if (this.panelWanted) {
        this.panelWanted = false;
        this.loadPanel();
      }
    }, 80);
  }

  /** A panel (or its decision buttons) may be swapped in only for the current entity, or
   * empty when nothing (or an entity that is gone) is current. */
  isCurrent(entity) {
    return entity === this.entity || (!entity && (!this.entity || !document.getElementById(`ent-${this.entity}`)));
  }

  guardPanel() {
    const entityIn = (element) => {
      if (!element) return null;
      const holder = element.matches("[data-entity]") ? element : element.querySelector("[data-entity]");
      return holder ? holder.dataset.entity : null;
    };
    document.body.addEventListener("htmx:beforeSwap", (event) => {
      if (!event.detail.target || event.detail.target.id !== "entity-panel") return;
      const found = /data-entity="(\d+)"/.exec(event.detail.serverResponse || "");
      if (!this.isCurrent(found ? found[1] : null)) event.detail.shouldSwap = false;
    });
    document.body.addEventListener("htmx:oobBeforeSwap", (event) => {
      const id = event.detail.target && event.detail.target.id;
      if (id !== "entity-panel" && id !== "panel-decision") return;
      if (!this.isCurrent(entityIn(event.detail.fragment.firstElementChild))) event.detail.shouldSwap = false;
    });
  }
}
