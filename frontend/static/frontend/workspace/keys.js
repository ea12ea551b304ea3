/* The workspace's keys (the help dialog, help.html, lists them).
 *
 * Every key acts on what is current when it goes down: the actions read the current
 * entity at that moment and carry it with their write (main.js), so a key typed while an
 * earlier change is being saved never lands on another entity.
 */

export const TYPE_KEYS = { p: "PERSON", c: "CODE", l: "LOC", o: "ORG", d: "DEM", t: "DATETIME", q: "QUANTITY", m: "MISC" };
export const DECISION_KEYS = { 1: "DIRECT", 2: "QUASI", 3: "NO_MASK" };
export const CONFIDENTIAL_KEYS = { n: "NOT_CONFIDENTIAL", b: "BELIEF", p: "POLITICS", s: "SEX", e: "ETHNIC", h: "HEALTH" };

/**
 * @param app the workspace: editable, menu (KeyMenu), reviewing(), dialogOpen(), and
 *   the actions escape, undo, help, toggleReview, step(delta), stepMention(delta),
 *   decide(value), confidential, occurrences, takeSuggestion, retype, split, remove,
 *   startMerge, annotate (Enter: true if it opened the type menu), cursorActive(),
 *   moveCursor(delta, extend, byLine)
 */
export function bindKeys(app) {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") return app.escape();
    if (app.menu.isOpen) {
      if (app.menu.press(event.key)) event.preventDefault();
      return;
    }
    const field = event.target.closest && event.target.closest("input, select, textarea");
    if (field || event.altKey || event.metaKey) return;
    if (event.ctrlKey) {
      if (event.key.toLowerCase() === "z") {
        event.preventDefault();
        app.undo();
      }
      return;
    }
    if (app.dialogOpen()) return;
    const key = event.key;
    if (key === "Enter") {
      if (app.editable && app.annotate()) event.preventDefault();
      return;
    }
    if ((key === "ArrowRight" || key === "ArrowLeft") && !app.reviewing()) {
      event.preventDefault();
      return app.moveCursor(key === "ArrowRight" ? 1 : -1, event.shiftKey);
    }
    if ((key === "ArrowDown" || key === "ArrowUp") && app.cursorActive()) {
      event.preventDefault(); // without a cursor the arrows scroll the page
      return app.moveCursor(key === "ArrowDown" ? 1 : -1, event.shiftKey, true);
    }
    const handler = DECISION_KEYS[key] ? () => app.decide(DECISION_KEYS[key]) : handlers(app)[key];
    if (handler) {
      event.preventDefault();
      handler();
    }
  });
}

function handlers(app) {
  const keys = {
    "?": app.help,
    r: () => app.editable && app.toggleReview(),
    u: app.undo,
    j: () => app.step(1),
    k: () => app.step(-1),
    "]": () => app.stepMention(1),
    "[": () => app.stepMention(-1),
    c: app.confidential,
    a: app.occurrences,
    g: app.takeSuggestion,
    y: app.retype,
    s: app.split,
    x: app.remove,
    Delete: app.remove,
    m: app.startMerge,
  };
  if (app.reviewing()) {
    keys.ArrowRight = () => app.step(1);
    keys.ArrowLeft = () => app.step(-1);
  }
  return keys;
}
