/* Chain numbers: two identical strings in different entities must not look alike.
 *
 * Every entity is numbered by its place in the entity list (the list shows the number
 * too). A mention whose string (case and spacing aside) is also a mention of another
 * entity shows its entity's number before it, so "Agent ³" and "Agent ¹⁷" are visibly
 * two chains: this is how a split mention shows that it is its own entity. The numbers
 * are taken from the page after every swap, so they always match the list the server
 * sent last (a partial update never leaves a stale number in the text).
 */

const keyOf = (text) => text.replace(/\s+/g, " ").trim().toLowerCase();

function setData(element, name, value) {
  // Only real changes touch the DOM (no style work on a thousand unchanged marks).
  if (value === null) {
    if (name in element.dataset) delete element.dataset[name];
  } else if (element.dataset[name] !== value) element.dataset[name] = value;
}

export function numberChains() {
  const numbers = new Map();
  document.querySelectorAll("#entity-list > li[data-e]").forEach((row, index) => {
    numbers.set(row.dataset.e, String(index + 1));
    const button = row.querySelector(".ent-btn");
    if (button) setData(button, "n", String(index + 1));
  });
  // A mention may be several marks (cut at a line break or by a crossing mention):
  // its text is theirs joined, its badge goes on the first.
  const mentions = new Map();
  for (const mark of document.querySelectorAll("#doc-text mark[data-m]")) {
    const seen = mentions.get(mark.dataset.m);
    if (seen) seen.text += mark.textContent;
    else mentions.set(mark.dataset.m, { mark, entity: mark.dataset.e, text: mark.textContent });
  }
  const entitiesOf = new Map();
  for (const mention of mentions.values()) {
    mention.key = keyOf(mention.text);
    if (!entitiesOf.has(mention.key)) entitiesOf.set(mention.key, new Set());
    entitiesOf.get(mention.key).add(mention.entity);
  }
  for (const mention of mentions.values()) {
    const shared = entitiesOf.get(mention.key).size > 1;
    setData(mention.mark, "chain", shared ? numbers.get(mention.entity) || null : null);
  }
}
