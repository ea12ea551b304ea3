/* The annotation workspace: selections, keys, review mode.
 *
 * The server owns the state. Every change is one POST, sent in order (a queue), with
 * the layer version this page last saw; the answer swaps in the lines and entities
 * that changed (HTMX out-of-band swaps). A stale version is refused by the server,
 * which then sends the current state.
 *
 * Offsets: see offsets.js; the write queue: writes.js.
 */
import { KeyMenu } from "./menu.js";
import { selectionSpan as spanIn } from "./offsets.js";
import { flash, WriteQueue } from "./writes.js";
import "./structure.js"; // chain numbers, note pins, the narrow-screen drawer

const ws = document.getElementById("workspace");
if (ws) start(ws);

function start(ws) {
  const editable = ws.dataset.editable === "1";
  const TYPE_KEYS = { p: "PERSON", c: "CODE", l: "LOC", o: "ORG", d: "DEM", t: "DATETIME", q: "QUANTITY", m: "MISC" };
  const DECISION_KEYS = { 1: "DIRECT", 2: "QUASI", 3: "NO_MASK" };
  const CONFIDENTIAL_KEYS = { n: "NOT_CONFIDENTIAL", b: "BELIEF", p: "POLITICS", s: "SEX", e: "ETHNIC", h: "HEALTH" };
  // seq counts the user's selections: an answer may only change the selection if the
  // user has not selected something else since the request left.
  const state = { entity: null, mention: null, review: false, merging: false, pending: null, seq: 0 };
  const menu = new KeyMenu(document.getElementById("menu"));
  const selectionSpan = () => spanIn(textRoot());
  const runs = () => Array.from(textRoot().querySelectorAll("[data-o]"));

  const $ = (selector) => document.querySelector(selector);
  const $$ = (selector) => Array.from(document.querySelectorAll(selector));
  const textRoot = () => document.getElementById("doc-text");
  // URL templates carry 0 where the entity or mention id goes (ids start at 1).
  const urlFor = (name, id) => ws.dataset[name].replace("/0/", `/${id}/`);
  const version = () => document.getElementById("ws-state").dataset.version;

  const writes = new WriteQueue(ws, () => ({ layer_version: version(), current_entity: state.entity || "" }));

  /** Send a change; the answer may make an entity current, unless the user moved on. */
  function post(url, values) {
    if (!editable) return Promise.resolve();
    return writes.post(url, values, () => {
      const seq = state.seq; // taken when the request leaves
      return () => applySelection(seq);
    });
  }

  function applySelection(seq) {
    const box = document.getElementById("ws-state");
    const wanted = box.dataset.select;
    delete box.dataset.select;
    if (!wanted || seq !== state.seq) return;
    const [entity, mention] = wanted.split(":");
    select(entity, mention, { load: false });
  }

  // ---- The current entity and mention ----------------------------------------------
  function highlight() {
    $$("mark.cur").forEach((mark) => mark.classList.remove("cur", "curm"));
    $$("#entity-list > li.cur").forEach((row) => row.classList.remove("cur"));
    if (!state.entity) return;
    $$(`#doc-text mark[data-e="${state.entity}"]`).forEach((mark) => {
      mark.classList.add("cur");
      if (mark.dataset.m === String(state.mention)) mark.classList.add("curm");
    });
    const row = document.getElementById(`ent-${state.entity}`);
    if (row) row.classList.add("cur");
  }

  function scrollToMention(mentionId) {
    const mark = $(`#doc-text mark[data-m="${mentionId}"]`);
    if (mark) mark.scrollIntoView({ block: "center", behavior: "smooth" });
    const row = document.getElementById(`ent-${state.entity}`);
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  function select(entityId, mentionId, options) {
    const opts = Object.assign({ load: true, scroll: false }, options);
    state.seq += 1;
    state.entity = entityId ? String(entityId) : null;
    if (mentionId && String(mentionId) !== "0") state.mention = String(mentionId);
    else if (state.entity) {
      const first = $(`#doc-text mark[data-e="${state.entity}"]`);
      state.mention = first ? first.dataset.m : null;
    }
    if (!state.entity) state.mention = null;
    highlight();
    if (opts.scroll && state.mention) scrollToMention(state.mention);
    if (opts.load && state.entity) {
      htmx.ajax("GET", urlFor("entityUrl", state.entity), { target: "#entity-panel", swap: "outerHTML" });
    }
  }

  function entityRows() {
    const onlyUndecided = $("#only-undecided") && $("#only-undecided").checked;
    return $$("#entity-list > li").filter((row) => !onlyUndecided || row.classList.contains("undecided") || row.classList.contains("cur"));
  }

  function step(delta, preferUndecided) {
    const rows = entityRows();
    if (!rows.length) return;
    let index = rows.findIndex((row) => row.dataset.e === state.entity);
    if (preferUndecided) {
      for (let i = 1; i <= rows.length; i += 1) {
        const candidate = rows[(index + delta * i + rows.length * 2) % rows.length];
        if (candidate.classList.contains("undecided")) {
          select(candidate.dataset.e, candidate.dataset.first, { scroll: true });
          return;
        }
      }
    }
    index = index < 0 ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + delta));
    select(rows[index].dataset.e, rows[index].dataset.first, { scroll: true });
  }

  function stepMention(delta) {
    if (!state.entity) return;
    const marks = $$(`#doc-text mark[data-e="${state.entity}"]`);
    const ids = [...new Set(marks.map((mark) => mark.dataset.m))];
    if (!ids.length) return;
    const index = ids.indexOf(state.mention);
    const next = ids[(index + delta + ids.length) % ids.length];
    select(state.entity, next, { load: false, scroll: true });
  }

  function setMode() {
    const label = $("#mode");
    const parts = [];
    if (state.review) parts.push("Review mode: 1 2 3 decide, j/k or ←/→ move, Esc leaves");
    if (state.merging) parts.push("Merge: click a mention whose entity joins the current one (Esc cancels)");
    label.textContent = parts.join(" · ");
    ws.classList.toggle("reviewing", state.review);
    ws.classList.toggle("merging", state.merging);
    const button = $("#btn-review");
    if (button) button.setAttribute("aria-pressed", String(state.review));
  }

  function toggleReview() {
    state.review = !state.review;
    setMode();
    if (!state.review) return;
    // Start at the current entity if it still needs a decision, else at the next one that does.
    const current = state.entity && document.getElementById(`ent-${state.entity}`);
    if (current && current.classList.contains("undecided")) return scrollToMention(state.mention);
    if (current) return step(1, true);
    const row = entityRows().find((r) => r.classList.contains("undecided")) || entityRows()[0];
    if (row) select(row.dataset.e, row.dataset.first, { scroll: true });
  }

  // ---- Actions ------------------------------------------------------------------------
  function decide(field, value) {
    if (!state.entity) return flash("Select an entity first (click a mention, or r for review mode).", "info");
    const entity = state.entity;
    return post(urlFor("decisionUrl", entity), { [field]: value }).then(() => {
      if (state.review && field === "identifier_type" && state.entity === entity) step(1, true);
    });
  }

  function createMention(span, entityType) {
    window.getSelection().removeAllRanges();
    return post(ws.dataset.createUrl, { start: span.start, end: span.end, entity_type: entityType });
  }

  function resizeMention(span) {
    if (!state.mention) return;
    window.getSelection().removeAllRanges();
    return post(urlFor("updateUrl", state.mention), { start: span.start, end: span.end });
  }

  function mentionAction(kind, mentionId) {
    const id = mentionId || state.mention;
    if (!id) return flash("Select a mention first.", "info");
    if (kind === "delete") return post(urlFor("deleteUrl", id));
    if (kind === "split") return post(urlFor("splitUrl", id));
    if (kind === "retype") {
      const mark = $(`#doc-text mark[data-m="${id}"]`);
      return openMenu("Type of this mention", typeOptions((type) => post(urlFor("updateUrl", id), { entity_type: type })), mark);
    }
  }

  function mergeInto(targetEntity, sourceEntity) {
    state.merging = false;
    setMode();
    if (!targetEntity || !sourceEntity || targetEntity === sourceEntity) return;
    return post(urlFor("mergeUrl", targetEntity), { source: sourceEntity });
  }

  // ---- Menus (types after a selection, confidential status) ------------------------
  function typeOptions(choose) {
    return Object.entries(TYPE_KEYS).map(([key, type]) => ({ key, label: type, cls: `t-${type}`, run: () => choose(type) }));
  }

  function openMenu(title, options, anchor) {
    menu.open(title, options, anchor);
  }

  function closeMenu() {
    menu.close();
    state.pending = null;
  }

  function openSelectionMenu(span) {
    state.pending = span;
    const options = typeOptions((type) => createMention(span, type));
    if (state.mention) {
      options.push({ key: "e", label: "Resize the current mention to this", cls: "menu-resize", run: () => resizeMention(span) });
    }
    openMenu("Annotate as", options, span.rect);
  }

  function openConfidentialMenu() {
    if (!state.entity) return flash("Select an entity first.", "info");
    const options = Object.entries(CONFIDENTIAL_KEYS).map(([key, value]) => ({
      key,
      label: value.replace("_", " ").toLowerCase(),
      run: () => decide("confidential_status", value),
    }));
    openMenu("Confidential status", options, document.getElementById("entity-panel"));
  }

  // ---- Dialogs -------------------------------------------------------------------------
  function openConfirm() {
    htmx.ajax("GET", ws.dataset.confirmUrl, { target: "#dialog", swap: "innerHTML" });
  }

  function closeDialogs() {
    document.getElementById("dialog").innerHTML = "";
    document.getElementById("help").hidden = true;
  }

  function jumpToOffset(offset) {
    const target = runs().filter((run) => Number(run.dataset.o) <= offset).pop();
    if (!target) return;
    target.scrollIntoView({ block: "center", behavior: "smooth" });
    target.classList.add("flash-run");
    setTimeout(() => target.classList.remove("flash-run"), 2400);
  }

  // ---- Events ------------------------------------------------------------------------
  document.addEventListener("mouseup", (event) => {
    if (!editable || !textRoot().contains(event.target)) return;
    setTimeout(() => {
      const span = selectionSpan();
      if (span) openSelectionMenu(span);
    }, 0);
  });

  document.addEventListener("click", (event) => {
    const target = event.target;
    if (target.closest("#menu")) return;
    if (!target.closest("#menu") && !document.getElementById("menu").hidden && !window.getSelection().toString()) closeMenu();
    const mark = target.closest("#doc-text mark[data-m]");
    if (mark && window.getSelection().isCollapsed) {
      if (state.merging) return mergeInto(state.entity, mark.dataset.e);
      return select(mark.dataset.e, mark.dataset.m);
    }
    const entityButton = target.closest(".ent-btn");
    if (entityButton) {
      if (state.merging) return mergeInto(state.entity, entityButton.dataset.e);
      return select(entityButton.dataset.e, entityButton.dataset.m, { scroll: true });
    }
    const jump = target.closest("[data-jump]");
    if (jump) {
      if (jump.hasAttribute("data-close-dialog")) closeDialogs();
      const mark = $(`#doc-text mark[data-m="${jump.dataset.jump}"]`);
      if (mark) select(mark.dataset.e, jump.dataset.jump, { scroll: true, load: !!jump.closest("#dialog") });
      return;
    }
    const jumpOffset = target.closest("[data-jump-offset]");
    if (jumpOffset) {
      closeDialogs();
      return jumpToOffset(Number(jumpOffset.dataset.jumpOffset));
    }
    if (target.closest("[data-close-dialog]") || target.closest("[data-close]")) return closeDialogs();
    const action = target.closest("[data-action]");
    if (action && action.tagName === "BUTTON") {
      const kind = action.dataset.action;
      if (kind === "decision") return decide(action.dataset.field, action.dataset.value);
      if (kind === "merge") return mergeInto(action.dataset.entity, $("#merge-source") && $("#merge-source").value);
      if (kind === "occurrences") return post(urlFor("occurrencesUrl", action.dataset.entity));
      return mentionAction(kind, action.dataset.mention);
    }
    if (target.closest("#btn-review")) return toggleReview();
    if (target.closest("#btn-undo")) return post(ws.dataset.undoUrl);
    if (target.closest("#btn-help")) return ($("#help").hidden = false);
    if (target.closest("#btn-confirm")) return openConfirm();
  });

  document.addEventListener("change", (event) => {
    const select = event.target.closest("select[data-action='confidential']");
    if (select && select.value) decide("confidential_status", select.value);
    if (event.target.id === "only-undecided") ws.classList.toggle("only-undecided", event.target.checked);
  });

  document.addEventListener("keydown", (event) => {
    const field = event.target.closest("input, select, textarea");
    if (event.key === "Escape") {
      // Close what is open; with nothing open, leave review mode, then deselect.
      const open = menu.isOpen || $("#dialog").innerHTML.trim() || !$("#help").hidden || state.merging;
      closeMenu();
      closeDialogs();
      state.merging = false;
      if (!open && state.review) state.review = false;
      else if (!open) select(null, null, { load: false });
      setMode();
      return;
    }
    if (menu.isOpen) {
      if (menu.press(event.key)) event.preventDefault();
      return;
    }
    if (field || event.altKey || event.metaKey) return;
    if (event.ctrlKey) {
      if (event.key.toLowerCase() === "z") {
        event.preventDefault();
        post(ws.dataset.undoUrl);
      }
      return;
    }
    if ($("#dialog").innerHTML.trim() || !$("#help").hidden) return; // a dialog is open
    const key = event.key;
    if (key === "Enter" && editable) {
      // Keyboard selection (caret browsing, F7): Enter annotates what is selected.
      const span = selectionSpan();
      if (span) {
        event.preventDefault();
        return openSelectionMenu(span);
      }
    }
    const handlers = {
      "?": () => ($("#help").hidden = false),
      r: () => editable && toggleReview(),
      u: () => post(ws.dataset.undoUrl),
      j: () => step(1, false),
      k: () => step(-1, false),
      "]": () => stepMention(1),
      "[": () => stepMention(-1),
      c: () => openConfidentialMenu(),
      a: () => (state.entity ? post(urlFor("occurrencesUrl", state.entity)) : flash("Select an entity first.", "info")),
      g: () => {
        const take = $("#accept-suggestion");
        return take ? take.click() : flash("No engine suggestion to take for this entity.", "info");
      },
      y: () => mentionAction("retype"),
      s: () => mentionAction("split"),
      x: () => mentionAction("delete"),
      Delete: () => mentionAction("delete"),
      m: () => {
        if (!state.entity) return flash("Select the entity to merge into first.", "info");
        state.merging = true;
        setMode();
      },
    };
    if (state.review) {
      handlers.ArrowRight = () => step(1, false);
      handlers.ArrowLeft = () => step(-1, false);
    }
    if (DECISION_KEYS[key]) {
      event.preventDefault();
      return decide("identifier_type", DECISION_KEYS[key]);
    }
    if (handlers[key]) {
      event.preventDefault();
      handlers[key]();
    }
  });

  document.body.addEventListener("htmx:afterSettle", () => {
    if (state.entity && !document.getElementById(`ent-${state.entity}`)) {
      // The entity went away (deleted, merged, undone): nothing is current any more.
      state.entity = null;
      state.mention = null;
    }
    highlight();
    // Informative messages fade; errors stay until the next action.
    const message = $("#flash p.flash-info");
    if (message) setTimeout(() => message.isConnected && message.remove(), 5000);
  });
}
