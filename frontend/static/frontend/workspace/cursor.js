/* A token cursor: annotating with the keyboard alone, without caret browsing.
 *
 * ← and → move an outline from token to token (a word, or one punctuation mark), ↑ and
 * ↓ to the nearest token of the line above or below; with Shift they extend a selection
 * of whole tokens from where the cursor was;
 * the workspace opens its type menu on Enter (main.js). Tokens are read from the text
 * as shown: every text node lies in a run carrying its code-point offset (data-o, see
 * offsets.js), so a token's offsets are TAB offsets. The cursor keeps the offset of its
 * token, not the DOM node, so it survives the swaps that redraw lines of text.
 *
 * The outline and the selection are boxes drawn over the text (not the browser's
 * selection, which mouse handlers read): absolutely placed in page coordinates, they
 * scroll with the page and are redrawn after a swap or a resize.
 */
import { codePoints, runOf } from "./offsets.js";

const TOKEN = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*|[^\s\p{L}\p{M}\p{N}]/gu;

/** Every text node of the document with its code-point offset, grouped by line. */
function linesOf(root) {
  const lines = new Map();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let previous = null;
  let previousEnd = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const run = runOf(root, node);
    if (!run || !node.data) continue;
    // A run holds its text only; a second text node of the same run continues the first.
    const start = previous && run.contains(previous) ? previousEnd : Number(run.dataset.o);
    const line = run.closest(".blk, p") || root;
    if (!lines.has(line)) lines.set(line, []);
    lines.get(line).push({ node, start });
    previous = node;
    previousEnd = start + codePoints(node.data);
  }
  return lines.values();
}

/** The tokens of the text in document order: {start, end, text, range()} (code points). */
export function tokenize(root) {
  const tokens = [];
  for (const pieces of linesOf(root)) {
    let joined = "";
    for (const piece of pieces) {
      piece.at = joined.length; // UTF-16 index in the joined line
      joined += piece.node.data;
    }
    // The piece holding UTF-16 index i of the joined line (for an end: the one before it).
    const pieceAt = (i, isEnd) => {
      let found = pieces[0];
      for (const piece of pieces) {
        if (piece.at < i || (!isEnd && piece.at === i)) found = piece;
        else break;
      }
      return found;
    };
    for (const match of joined.matchAll(TOKEN)) {
      const from = match.index;
      const to = from + match[0].length;
      const first = pieceAt(from, false);
      const last = pieceAt(to, true);
      tokens.push({
        start: first.start + codePoints(joined.slice(first.at, from)),
        end: last.start + codePoints(joined.slice(last.at, to)),
        text: match[0],
        range() {
          const range = document.createRange();
          range.setStart(first.node, from - first.at);
          range.setEnd(last.node, to - last.at);
          return range;
        },
      });
    }
  }
  return tokens;
}

export class TokenCursor {
  /** @param root () => the document text element (a swap may replace it) */
  constructor(root) {
    this.root = root;
    this.tokens = null;
    this.at = null; // start offset of the token under the cursor; null: no cursor
    this.anchor = null; // start offset of the token where a Shift selection began
    this.layer = document.createElement("div");
    this.layer.className = "tok-layer";
    this.layer.setAttribute("aria-hidden", "true");
    // One outline element, moved rather than redrawn: it stays the same node across swaps.
    this.box = document.createElement("div");
    this.box.id = "token-cursor";
    this.box.className = "tok-cur";
    this.box.hidden = true;
    this.layer.appendChild(this.box);
    document.body.appendChild(this.layer);
    window.addEventListener("resize", () => this.draw());
  }

  get active() {
    return this.at !== null;
  }

  get selecting() {
    return this.anchor !== null && this.anchor !== this.at;
  }

  /** The text changed (a swap): read the tokens again when next needed, redraw now. */
  invalidate() {
    this.tokens = null;
    if (this.active) this.draw();
  }

  list() {
    if (!this.tokens) this.tokens = tokenize(this.root());
    return this.tokens;
  }

  /** Index of the token holding ``offset`` (or the last one starting before it). */
  indexOf(offset) {
    const tokens = this.list();
    let low = 0;
    let high = tokens.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (tokens[middle].start <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** Put the cursor on the token at ``offset``, or on the first token in view. */
  place(offset) {
    const tokens = this.list();
    if (!tokens.length) return false;
    const index = offset === undefined || offset === null ? this.firstInView() : this.indexOf(offset);
    this.at = tokens[index].start;
    this.anchor = null;
    this.draw(true);
    return true;
  }

  firstInView() {
    const tokens = this.list();
    const top = this.visibleTop();
    let low = 0;
    let high = tokens.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (tokens[middle].range().getBoundingClientRect().bottom > top) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Move by ``delta`` tokens; with ``extend`` the selection grows or shrinks. */
  move(delta, extend) {
    if (!this.active) return this.place();
    const tokens = this.list();
    if (extend && this.anchor === null) this.anchor = this.at;
    if (!extend) this.anchor = null;
    const index = Math.max(0, Math.min(tokens.length - 1, this.indexOf(this.at) + delta));
    this.at = tokens[index].start;
    this.draw(true);
    return true;
  }

  /** Move to the token of the next (1) or previous (-1) line of text nearest the cursor's
   * horizontal position; with ``extend`` the selection follows. */
  moveLine(delta, extend) {
    if (!this.active) return this.place();
    const tokens = this.list();
    const here = this.indexOf(this.at);
    const from = tokens[here].range().getBoundingClientRect();
    const x = from.left + from.width / 2;
    const sameLine = (a, b) => Math.abs(a - b) < from.height / 2;
    let lineTop = null;
    let best = null;
    for (let i = here + delta; i >= 0 && i < tokens.length; i += delta) {
      const rect = tokens[i].range().getBoundingClientRect();
      if (sameLine(rect.top, from.top)) continue;
      if (lineTop === null) lineTop = rect.top;
      else if (!sameLine(rect.top, lineTop)) break;
      const distance = Math.abs(rect.left + rect.width / 2 - x);
      if (!best || distance < best.distance) best = { i, distance };
    }
    if (!best) return false;
    return this.move(best.i - here, extend);
  }

  /** The selected tokens (at least the one under the cursor) as {start, end, rect, text}. */
  span() {
    if (!this.active) return null;
    const tokens = this.list();
    const here = this.indexOf(this.at);
    const there = this.anchor === null ? here : this.indexOf(this.anchor);
    const first = tokens[Math.min(here, there)];
    const last = tokens[Math.max(here, there)];
    const range = first.range();
    const end = last.range();
    range.setEnd(end.endContainer, end.endOffset);
    return { start: first.start, end: last.end, rect: tokens[here].range().getBoundingClientRect(), text: range.toString() };
  }

  /** The text under the cursor, for the mode line. */
  describe() {
    if (!this.active) return "";
    const span = this.span();
    return span.text.length > 60 ? `${span.text.slice(0, 57)}…` : span.text;
  }

  clear() {
    this.at = null;
    this.anchor = null;
    this.draw();
  }

  unselect() {
    this.anchor = null;
    this.draw();
  }

  visibleTop() {
    const bar = document.querySelector(".ws-top");
    return bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
  }

  /** Where the text stops being visible: the window's bottom, or a narrow screen's drawer. */
  visibleBottom() {
    const side = document.getElementById("ws-side");
    if (side && getComputedStyle(side).position === "fixed") return side.getBoundingClientRect().top;
    return window.innerHeight;
  }

  /** Draw the selection and the outline; with ``reveal``, scroll the cursor into view. */
  draw(reveal) {
    this.layer.querySelectorAll(".tok-sel").forEach((element) => element.remove());
    this.box.hidden = true;
    if (!this.active || !this.root()) return;
    const tokens = this.list();
    if (!tokens.length) return;
    const here = this.indexOf(this.at);
    const box = (rect, element) => {
      element.style.left = `${rect.left + window.scrollX}px`;
      element.style.top = `${rect.top + window.scrollY}px`;
      element.style.width = `${rect.width}px`;
      element.style.height = `${rect.height}px`;
      return element;
    };
    const selected = (rect) => {
      const element = document.createElement("div");
      element.className = "tok-sel";
      this.layer.insertBefore(box(rect, element), this.box);
    };
    if (this.selecting) {
      const there = this.indexOf(this.anchor);
      const range = tokens[Math.min(here, there)].range();
      const end = tokens[Math.max(here, there)].range();
      range.setEnd(end.endContainer, end.endOffset);
      const rects = Array.from(range.getClientRects()).filter((rect) => rect.width > 0);
      rects.slice(0, 400).forEach(selected);
    }
    const rect = tokens[here].range().getBoundingClientRect();
    box(rect, this.box);
    this.box.dataset.start = String(tokens[here].start);
    this.box.dataset.end = String(tokens[here].end);
    this.box.hidden = false;
    const [top, bottom] = [this.visibleTop(), this.visibleBottom()];
    if (reveal && (rect.top < top + 8 || rect.bottom > bottom - 8)) {
      window.scrollBy({ top: rect.top - (top + bottom) / 2, behavior: "instant" });
      this.draw(false);
    }
  }
}
