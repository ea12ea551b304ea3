/* Review notes marked on their mention.
 *
 * Each note of the review panel puts a small pin before its mention in the text (a note
 * on a whole entity: before the entity's first mention): amber while open, grey with a
 * tick once settled. Clicking the pin opens the note's thread in the review panel. The
 * pins are drawn from the panel's threads (data-note-m, data-note-e) after every swap,
 * since a swap may replace lines of text or the panel itself. A pin has no text of its
 * own (its icon is CSS), so it changes neither offsets nor the text of a mention.
 */
import { showSideTab } from "./drawer.js";

export function markNotes() {
  const text = document.getElementById("doc-text");
  if (!text) return;
  const kept = new Set();
  for (const thread of document.querySelectorAll("#review-panel article.thread")) {
    const { noteM, noteE } = thread.dataset;
    const mark =
      (noteM && text.querySelector(`mark[data-m="${noteM}"]`)) ||
      (noteE && text.querySelector(`mark[data-e="${noteE}"]`));
    if (!mark) continue; // the mention and its entity are gone: the thread keeps its anchor text
    const open = thread.classList.contains("thread-open");
    const className = `note-pin ${open ? "note-open" : "note-settled"}`;
    const existing = text.querySelector(`.note-pin[data-thread="${thread.id}"]`);
    if (existing && existing.className === className && markAfter(existing) === mark) {
      kept.add(existing); // unchanged: leave the text alone
      continue;
    }
    const about = thread.querySelector("header strong");
    const pin = document.createElement("button");
    pin.type = "button";
    pin.className = className;
    pin.dataset.thread = thread.id;
    const what = about ? about.textContent : "this mention";
    pin.title = `${open ? "Open note" : "Settled note"} on ${what}: click to read it`;
    pin.setAttribute("aria-label", pin.title);
    mark.before(pin);
    kept.add(pin);
  }
  text.querySelectorAll(".note-pin").forEach((pin) => kept.has(pin) || pin.remove());
}

/** The mark a pin stands before (several notes on one mention: several pins in a row). */
function markAfter(pin) {
  let next = pin.nextElementSibling;
  while (next && next.classList.contains("note-pin")) next = next.nextElementSibling;
  return next;
}

/** Bring a thread into view in the review panel, mark it and put the cursor in its reply. */
export function openThread(id) {
  const thread = document.getElementById(id);
  if (!thread) return;
  showSideTab("review");
  const panel = thread.closest("#review-panel");
  if (panel) panel.scrollTop += thread.getBoundingClientRect().top - panel.getBoundingClientRect().top - 8;
  thread.scrollIntoView({ block: "nearest" });
  document.querySelectorAll(".thread.thread-focus").forEach((other) => other.classList.remove("thread-focus"));
  thread.classList.add("thread-focus");
  const reply = thread.querySelector("input[name=body]");
  if (reply) reply.focus({ preventScroll: true });
}

// Capture phase: the pin sits in the text, but a click on it is not a click on a mention.
document.addEventListener(
  "click",
  (event) => {
    const pin = event.target.closest && event.target.closest("#doc-text .note-pin");
    if (!pin) return;
    event.preventDefault();
    event.stopPropagation();
    openThread(pin.dataset.thread);
  },
  true,
);
