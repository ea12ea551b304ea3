/* Browser selections to TAB offsets.
 *
 * Browsers measure selections in UTF-16 code units; TAB offsets are Python code points
 * (an emoji outside the Basic Multilingual Plane is 2 units but 1 code point). Every run
 * of text in the document carries its code-point offset (data-o); a selection boundary
 * becomes data-o + the number of code points before it in its run.
 */

export function codePoints(text) {
  let count = 0;
  for (const _ of text) count += 1; // iterates by code point: a surrogate pair counts once
  return count;
}

/** The run (the element carrying data-o) that holds ``textNode`` inside ``root``, or null. */
export function runOf(root, textNode) {
  const run = textNode.parentElement && textNode.parentElement.closest("[data-o]");
  return run && root.contains(run) ? run : null;
}

export function runs(root) {
  return Array.from(root.querySelectorAll("[data-o]"));
}

/** The code-point offset of a selection boundary (container, offset) inside ``root``. */
export function offsetAt(root, container, offset, isEnd) {
  if (container.nodeType === Node.TEXT_NODE) {
    const run = runOf(root, container);
    if (run) return Number(run.dataset.o) + codePoints(container.data.slice(0, offset));
  }
  // A boundary between elements: the first run after it (start) or the last before it (end).
  const point = document.createRange();
  point.setStart(container, offset);
  const all = runs(root);
  if (isEnd) {
    for (let i = all.length - 1; i >= 0; i -= 1) {
      if (point.comparePoint(all[i], 0) < 0) return Number(all[i].dataset.o) + codePoints(all[i].textContent);
    }
    return 0;
  }
  for (const run of all) {
    if (point.comparePoint(run, 0) >= 0) return Number(run.dataset.o);
  }
  const last = all[all.length - 1];
  return last ? Number(last.dataset.o) + codePoints(last.textContent) : 0;
}

/** The current selection as {start, end, rect} in code points, or null. */
export function selectionSpan(root) {
  const selection = window.getSelection();
  if (!selection.rangeCount || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!root.contains(range.startContainer) && !root.contains(range.endContainer)) return null;
  const all = runs(root);
  const start = root.contains(range.startContainer)
    ? offsetAt(root, range.startContainer, range.startOffset, false)
    : Number(all[0].dataset.o);
  const end = root.contains(range.endContainer)
    ? offsetAt(root, range.endContainer, range.endOffset, true)
    : offsetAt(root, root, root.childNodes.length, true);
  return end > start ? { start, end, rect: range.getBoundingClientRect() } : null;
}
