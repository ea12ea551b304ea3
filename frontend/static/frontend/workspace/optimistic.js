/* Masking decisions shown before the server answers.
 *
 * A decision key paints the entity at once: its marks get the decision's class, tag and
 * title, its row in the entity list stops being undecided, the panel's button is pressed
 * and the progress count moves. The write follows in the queue (writes.js). Until it is
 * answered the change is "pending": an answer to an earlier write may swap in lines or
 * rows drawn by the server without it, so every swap repaints the pending changes on
 * the new elements (``reapply``). When the server accepts the write its own rendering
 * is the truth and the change is dropped (``settle``); when it refuses, every element
 * the change painted gets back the attributes it had before (``rollback``).
 *
 * Each change remembers, per element, what that element looked like before the change
 * painted it. Elements replaced by a swap are new and carry the server's state, which
 * is then what a rollback restores. Rolled back in the reverse order of the changes, two
 * pending decisions on one entity restore the first one's state, then the original.
 */

const LETTERS = { DIRECT: "D", QUASI: "Q", NO_MASK: "" };
const WORDS = { DIRECT: "direct", QUASI: "quasi", NO_MASK: "no mask" };
const DECISION_CLASS = /(^|\s)d-[A-Z_]+(?=\s|$)/g;

function remember(change, element, attributes, withText) {
  if (change.saved.has(element)) return;
  const attrs = attributes.map((name) => [name, element.getAttribute(name)]);
  change.saved.set(element, { attrs, text: withText ? element.textContent : null });
}

function restore(element, saved) {
  for (const [name, value] of saved.attrs) {
    if (value === null) element.removeAttribute(name);
    else element.setAttribute(name, value);
  }
  if (saved.text !== null) element.textContent = saved.text;
}

function paintMark(mark, value) {
  mark.className = `${mark.className.replace(DECISION_CLASS, "")} d-${value}`.replace(/\s+/g, " ").trim();
  const tag = mark.dataset.tag;
  if (tag !== undefined) {
    const base = tag.split("·")[0];
    mark.dataset.tag = LETTERS[value] ? `${base}·${LETTERS[value]}` : base;
  }
  const title = mark.getAttribute("title");
  if (title) {
    const parts = title.split(", ");
    parts[1] = WORDS[value];
    mark.setAttribute("title", parts.join(", "));
  }
}

/** The progress in the task box, counted from the entity list as it is shown. */
export function recount() {
  const progress = document.getElementById("progress");
  if (!progress) return;
  const rows = document.querySelectorAll("#entity-list > li[data-e]");
  const done = Array.from(rows).filter((row) => !row.classList.contains("undecided")).length;
  const bar = progress.querySelector("progress.bar");
  if (bar) bar.value = rows.length ? Math.round((100 * done) / rows.length) : 0;
  const label = Array.from(progress.childNodes).find((node) => node.nodeType === Node.TEXT_NODE);
  const text = `${done} / ${rows.length} decided`;
  if (label) label.data = text;
  else progress.append(text);
}

export class OptimisticDecisions {
  constructor() {
    this.pending = [];
  }

  /** Paint ``value`` (DIRECT, QUASI, NO_MASK) on ``entity`` now; returns the change. */
  apply(entity, value) {
    const change = { entity: String(entity), value, saved: new Map() };
    this.pending.push(change);
    this.paint(change);
    recount();
    return change;
  }

  paint(change) {
    const { entity, value } = change;
    for (const mark of document.querySelectorAll(`#doc-text mark[data-e="${entity}"]`)) {
      remember(change, mark, ["class", "data-tag", "title"]);
      paintMark(mark, value);
    }
    const row = document.getElementById(`ent-${entity}`);
    if (row) {
      remember(change, row, ["class"]);
      row.classList.remove("undecided");
      const word = row.querySelector(".dec");
      if (word) {
        remember(change, word, ["class"], true);
        word.className = `dec dec-${value}`;
        word.textContent = WORDS[value];
      }
    }
    const buttons = `#panel-decision .dec-btn[data-field="identifier_type"][data-entity="${entity}"]`;
    for (const button of document.querySelectorAll(buttons)) {
      remember(change, button, ["class", "aria-pressed"]);
      const on = button.dataset.value === value;
      button.classList.toggle("on", on);
      button.setAttribute("aria-pressed", String(on));
    }
  }

  /** After a swap: paint the pending changes again on elements the server just drew. */
  reapply() {
    if (!this.pending.length) return;
    for (const change of this.pending) this.paint(change);
    recount();
  }

  /** The server accepted the change: what it sent is the truth now. */
  settle(change) {
    this.pending = this.pending.filter((other) => other !== change);
  }

  /** The server refused the change: put back what every painted element showed before.
   * Returns the marks restored (to point at them). */
  rollback(change) {
    this.settle(change);
    const restored = [];
    for (const [element, saved] of Array.from(change.saved).reverse()) {
      if (!element.isConnected) continue;
      restore(element, saved);
      if (element.tagName === "MARK") restored.push(element);
    }
    recount();
    return restored;
  }
}
