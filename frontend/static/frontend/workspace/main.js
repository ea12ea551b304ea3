/* The annotation workspace: selections, keys, review mode.
 *
 * The server owns the state. Every change is one POST, sent in order (a queue), with
 * the layer version this page last saw; the answer swaps in the lines and entities
 * that changed (HTMX out-of-band swaps). A stale version is refused by the server,
 * which then sends the current state.
 *
 * A key acts on the entity that is current when it goes down, and its write names that
 * entity in its URL. Decisions are painted at once (optimistic.js) and undone if the
 * server refuses them; in review mode a decision moves to the next undecided entity at
 * the key press, so a burst of keys decides consecutive entities. An answer never moves
 * the selection of a user who selected something else since the key press, and a panel
 * that arrives for an entity that is no longer current is not shown.
 * (``data-server-first`` on #workspace turns the painting in advance off: only the
 * key-to-paint benchmark uses it, to measure the page without it.)
 *
 * Offsets: see offsets.js; the write queue: writes.js; keys: keys.js; the token
 * cursor: cursor.js.
 */
import { TokenCursor } from "./cursor.js";
import { bindKeys, CONFIDENTIAL_KEYS, TYPE_KEYS } from "./keys.js";
import { KeyMenu } from "./menu.js";
import { selectionSpan as spanIn } from "./offsets.js";
import { OptimisticDecisions } from "./optimistic.js";
import { flash, WriteQueue } from "./writes.js";
import "./structure.js"; // chain numbers, note pins, the narrow-screen drawer

const ws = document.getElementById("workspace");
if (ws) start(ws);

function start(ws) {
  const editable = ws.dataset.editable === "1";
  // seq counts the user's selections: an answer may only change the selection if the
  // user has not selected something else since the key press that sent it.
  // merging: the entity that merge mode merges into (null: not merging).
  const state = { entity: null, mention: null, review: false, merging: null, seq: 0 };
  const menu = new KeyMenu(document.getElementById("menu"));
  const decisions = new OptimisticDecisions();
  const textRoot = () => document.getElementById("doc-text");
  const cursor = new TokenCursor(textRoot);
  const selectionSpan = () => spanIn(textRoot());
  const runs = () => Array.from(textRoot().querySelectorAll("[data-o]"));

  const $ = (selector) => document.querySelector(selector);
  const $$ = (selector) => Array.from(document.querySelectorAll(selector));
  // URL templates carry 0 where the entity or mention id goes (ids start at 1).
  const urlFor = (name, id) => ws.dataset[name].replace("/0/", `/${id}/`);
  const version = () => document.getElementById("ws-state").dataset.version;

  // current_entity: the entity whose panel is shown, for the server to redraw it (a panel
  // still loading for another entity gets nothing to swap into).
  const shownEntity = () => {
    const panel = document.getElementById("entity-panel");
    return panel && panel.dataset.entity === state.entity ? state.entity : "";
  };
  const writes = new WriteQueue(ws, () => ({ layer_version: version(), current_entity: shownEntity() }));

  /** Send a change. Its answer may make an entity current, unless the user moved on. */
  function post(url, values, hooks) {
    if (!editable) return Promise.resolve(null);
    const seq = state.seq; // taken at the key press, not when the request leaves
    const own = hooks || {};
    return writes.post(url, values, {
      answered: (status) => {
        applySelection(seq);
        if (own.answered) own.answered(status);
      },
      refused: (status, dropped) => {
        if (own.refused) return own.refused(status, dropped);
        if (dropped) flash(`${$("#flash").textContent.trim()} ${notSent(dropped)}`, "error");
      },
      cancelled: own.cancelled,
    });
  }

  const notSent = (count) => `${count} later change${count > 1 ? "s were" : " was"} not sent.`;

  function applySelection(seq) {
    const box = document.getElementById("ws-state");
    const wanted = box.dataset.select;
    delete box.dataset.select;
    if (!wanted || seq !== state.seq) return;
    const [entity, mention] = wanted.split(":");
    const panel = document.getElementById("entity-panel");
    select(entity, mention, { load: !panel || panel.dataset.entity !== entity });
  }

  function entityName(entity) {
    const row = document.querySelector(`#ent-${entity} .ent-text`);
    const mark = $(`#doc-text mark[data-e="${entity}"]`);
    return row ? row.textContent : mark ? mark.textContent : `entity ${entity}`;
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

  // The panel of the current entity: one request at a time (a burst of review keys asks
  // for the last entity only), and shown only if its entity is still the current one.
  let panelTimer = null;
  let panelWanted = false;
  function loadPanel() {
    if (panelTimer) {
      panelWanted = true;
      return;
    }
    if (state.entity) htmx.ajax("GET", urlFor("entityUrl", state.entity), { target: "#entity-panel", swap: "outerHTML" });
    panelTimer = setTimeout(() => {
      panelTimer = null;
      if (panelWanted) {
        panelWanted = false;
        loadPanel();
      }
    }, 80);
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
    if (opts.load && state.entity) loadPanel();
  }

  function entityRows() {
    const onlyUndecided = $("#only-undecided") && $("#only-undecided").checked;
    return $$("#entity-list > li").filter((row) => !onlyUndecided || row.classList.contains("undecided") || row.classList.contains("cur"));
  }

  function step(delta) {
    const rows = entityRows();
    if (!rows.length) return;
    let index = rows.findIndex((row) => row.dataset.e === state.entity);
    index = index < 0 ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + delta));
    select(rows[index].dataset.e, rows[index].dataset.first, { scroll: true });
  }

  /** Review mode: on to the next undecided entity after the current one (in document
   * order, wrapping round); false if none is left. */
  function nextUndecided() {
    const rows = entityRows();
    const index = rows.findIndex((row) => row.dataset.e === state.entity);
    for (let i = 1; i <= rows.length; i += 1) {
      const candidate = rows[(index + i + rows.length) % rows.length];
      if (candidate.classList.contains("undecided") && candidate.dataset.e !== state.entity) {
        select(candidate.dataset.e, candidate.dataset.first, { scroll: true });
        return true;
      }
    }
    return false;
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
    const parts = [];
    if (state.review) parts.push("Review mode: 1 2 3 decide, j/k or ←/→ move, Esc leaves");
    if (cursor.active) {
      const what = cursor.selecting ? "Selected" : "Cursor on";
      parts.push(`${what} “${cursor.describe()}”: Shift+arrows select, Enter annotates, Esc clears`);
    }
    $("#mode").textContent = parts.join(" · ");
    ws.classList.toggle("reviewing", state.review);
    ws.classList.toggle("merging", !!state.merging);
    const button = $("#btn-review");
    if (button) button.setAttribute("aria-pressed", String(state.review));
    showMergeBanner();
  }

  function showMergeBanner() {
    let banner = document.getElementById("merge-banner");
    if (!state.merging) {
      if (banner) banner.remove();
      return;
    }
    if (!banner) {
      banner = document.createElement("p");
      banner.id = "merge-banner";
      banner.className = "merge-banner";
      banner.setAttribute("role", "status");
      ($(".ws-top") || ws).appendChild(banner);
    }
    const esc = document.createElement("kbd");
    esc.textContent = "Esc";
    banner.replaceChildren(`Merging into “${entityName(state.merging)}”: click an entity to merge it in, `, esc, " cancels");
  }

  function toggleReview() {
    state.review = !state.review;
    if (state.review) cursor.clear();
    setMode();
    if (!state.review) return;
    // Start at the current entity if it still needs a decision, else at the next one that does.
    const current = state.entity && document.getElementById(`ent-${state.entity}`);
    if (current && current.classList.contains("undecided")) return scrollToMention(state.mention);
    if (current) return nextUndecided();
    const row = entityRows().find((r) => r.classList.contains("undecided")) || entityRows()[0];
    if (row) select(row.dataset.e, row.dataset.first, { scroll: true });
  }

  // ---- Actions ------------------------------------------------------------------------
  /** Decide on ``entity`` (default: the current one, read now, at the key press). */
  function decide(field, value, entity) {
    const target = entity ? String(entity) : state.entity;
    if (!target) return flash("Select an entity first (click a mention, or r for review mode).", "info");
    const early = field === "identifier_type" && editable && ws.dataset.serverFirst === undefined;
    const change = early ? decisions.apply(target, value) : null;
    post(urlFor("decisionUrl", target), { [field]: value }, {
      answered: () => change && decisions.settle(change),
      cancelled: () => change && decisions.rollback(change),
      refused: (status, dropped) => {
        const restored = change ? decisions.rollback(change) : [];
        restored.forEach((mark) => mark.animate([{ outline: "3px solid #b42318" }, { outline: "3px solid transparent" }], 1800));
        const reason = $("#flash").textContent.trim();
        flash(`Not saved: the decision on “${entityName(target)}”. ${reason}${dropped ? ` ${notSent(dropped)}` : ""}`, "error");
      },
    });
    if (state.review && field === "identifier_type" && target === state.entity && !nextUndecided()) {
      flash("Every entity has a decision now: Confirm… checks the layer.", "info");
    }
  }

  function createMention(span, entityType) {
    window.getSelection().removeAllRanges();
    cursor.unselect();
    setMode();
    return post(ws.dataset.createUrl, { start: span.start, end: span.end, entity_type: entityType });
  }

  function resizeMention(span, mention) {
    window.getSelection().removeAllRanges();
    cursor.unselect();
    return post(urlFor("updateUrl", mention), { start: span.start, end: span.end });
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

  // Merge mode: "m" takes the current entity as the one to merge into; the next click on
  // another entity (in the text or the list) merges it in; Esc cancels.
  function startMerge() {
    if (!editable) return;
    if (!state.entity) return flash("Select the entity to merge into first.", "info");
    state.merging = state.entity;
    setMode();
  }

  function mergeWith(sourceEntity) {
    const target = state.merging;
    if (String(sourceEntity) === target) {
      return flash(`That is “${entityName(target)}” itself: click another entity, or Esc to cancel.`, "info");
    }
    state.merging = null;
    setMode();
    return mergeInto(target, sourceEntity);
  }

  function mergeInto(targetEntity, sourceEntity) {
    if (!targetEntity || !sourceEntity || String(targetEntity) === String(sourceEntity)) return;
    return post(urlFor("mergeUrl", targetEntity), { source: sourceEntity });
  }

  // ---- Menus (types after a selection, confidential status) ------------------------
  function typeOptions(choose) {
    return Object.entries(TYPE_KEYS).map(([key, type]) => ({ key, label: type, cls: `t-${type}`, run: () => choose(type) }));
  }

  function openMenu(title, options, anchor) {
    menu.open(title, options, anchor);
  }

  function openSelectionMenu(span) {
    const options = typeOptions((type) => createMention(span, type));
    const mention = state.mention;
    if (mention) {
      options.push({ key: "e", label: "Resize the current mention to this", cls: "menu-resize", run: () => resizeMention(span, mention) });
    }
    openMenu("Annotate as", options, span.rect);
  }

  function openConfidentialMenu() {
    const entity = state.entity;
    if (!entity) return flash("Select an entity first.", "info");
    const options = Object.entries(CONFIDENTIAL_KEYS).map(([key, value]) => ({
      key,
      label: value.replace("_", " ").toLowerCase(),
      run: () => decide("confidential_status", value, entity),
    }));
    openMenu("Confidential status", options, document.getElementById("entity-panel"));
  }

  // ---- The token cursor (keyboard selection) ---------------------------------------
  function moveCursor(delta, extend, byLine) {
    if (cursor.active && byLine) cursor.moveLine(delta, extend);
    else if (cursor.active) cursor.move(delta, extend);
    else {
      // Start at the current mention, else at the first word in view.
      const mark = state.mention && $(`#doc-text mark[data-m="${state.mention}"]`);
      const run = mark && (mark.matches("[data-o]") ? mark : mark.querySelector("[data-o]"));
      cursor.place(run ? Number(run.dataset.o) : null);
    }
    setMode();
  }

  /** Enter: the type menu for the cursor's tokens, else for the browser's selection. */
  function annotate() {
    const span = cursor.active ? cursor.span() : selectionSpan();
    if (!span) return false;
    openSelectionMenu(span);
    return true;
  }

  // ---- Dialogs -------------------------------------------------------------------------
  function openConfirm() {
    // The checks must see every key pressed before: wait for the writes still on their way.
    writes.idle().then(() => htmx.ajax("GET", ws.dataset.confirmUrl, { target: "#dialog", swap: "innerHTML" }));
  }

  function closeDialogs() {
    document.getElementById("dialog").innerHTML = "";
    document.getElementById("help").hidden = true;
  }

  const dialogOpen = () => !!$("#dialog").innerHTML.trim() || !$("#help").hidden;

  function jumpToOffset(offset) {
    const target = runs().filter((run) => Number(run.dataset.o) <= offset).pop();
    if (!target) return;
    target.scrollIntoView({ block: "center", behavior: "smooth" });
    target.classList.add("flash-run");
    setTimeout(() => target.classList.remove("flash-run"), 2400);
  }

  /** Esc closes what is open; with nothing open it clears the cursor, then leaves review
   * mode, then deselects. */
  function escape() {
    const open = menu.isOpen || dialogOpen() || !!state.merging || cursor.selecting;
    menu.close();
    closeDialogs();
    state.merging = null;
    if (cursor.selecting) cursor.unselect();
    else if (!open && cursor.active) cursor.clear();
    else if (!open && state.review) state.review = false;
    else if (!open) select(null, null, { load: false });
    setMode();
  }

  // ---- Events ------------------------------------------------------------------------
  bindKeys({
    editable,
    menu,
    reviewing: () => state.review,
    dialogOpen,
    escape,
    undo: () => post(ws.dataset.undoUrl),
    help: () => ($("#help").hidden = false),
    toggleReview,
    step,
    stepMention,
    decide: (value) => decide("identifier_type", value),
    confidential: openConfidentialMenu,
    occurrences: () => (state.entity ? post(urlFor("occurrencesUrl", state.entity)) : flash("Select an entity first.", "info")),
    takeSuggestion: () => {
      const take = $("#accept-suggestion");
      if (take && take.dataset.entity === state.entity) return take.click();
      const panel = $("#entity-panel");
      const loading = state.entity && panel && panel.dataset.entity !== state.entity;
      return flash(loading ? "The entity's panel is still loading: press g again." : "No engine suggestion to take for this entity.", "info");
    },
    retype: () => mentionAction("retype"),
    split: () => mentionAction("split"),
    remove: () => mentionAction("delete"),
    startMerge,
    annotate,
    cursorActive: () => cursor.active,
    moveCursor,
  });

  document.addEventListener("mousedown", (event) => {
    if (cursor.active && textRoot().contains(event.target)) {
      cursor.clear();
      setMode();
    }
  });

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
    if (!document.getElementById("menu").hidden && !window.getSelection().toString()) menu.close();
    const mark = target.closest("#doc-text mark[data-m]");
    if (mark && window.getSelection().isCollapsed) {
      if (state.merging) return mergeWith(mark.dataset.e);
      return select(mark.dataset.e, mark.dataset.m);
    }
    const entityButton = target.closest(".ent-btn");
    if (entityButton) {
      if (state.merging) return mergeWith(entityButton.dataset.e);
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
      if (kind === "decision") return decide(action.dataset.field, action.dataset.value, action.dataset.entity);
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
    const choice = event.target.closest("select[data-action='confidential']");
    if (choice && choice.value) decide("confidential_status", choice.value, choice.dataset.entity);
    if (event.target.id === "only-undecided") ws.classList.toggle("only-undecided", event.target.checked);
  });

  // A panel (or its decision buttons) drawn for an entity that is no longer current is
  // not shown: the user has moved on since the request left.
  const panelEntity = (element) => {
    if (!element) return null;
    const holder = element.matches("[data-entity]") ? element : element.querySelector("[data-entity]");
    return holder ? holder.dataset.entity : null;
  };
  const current = (entity) =>
    entity === state.entity || (!entity && (!state.entity || !document.getElementById(`ent-${state.entity}`)));
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    if (!event.detail.target || event.detail.target.id !== "entity-panel") return;
    const found = /data-entity="(\d+)"/.exec(event.detail.serverResponse || "");
    if (!current(found ? found[1] : null)) event.detail.shouldSwap = false;
  });
  document.body.addEventListener("htmx:oobBeforeSwap", (event) => {
    const id = event.detail.target && event.detail.target.id;
    if (id !== "entity-panel" && id !== "panel-decision") return;
    if (!current(panelEntity(event.detail.fragment.firstElementChild))) event.detail.shouldSwap = false;
  });

  // Right after a swap (before the browser paints): decisions still on their way are
  // painted again on the new elements, the current entity outlined, the cursor redrawn.
  let repaintQueued = false;
  const repaint = () => {
    if (repaintQueued) return;
    repaintQueued = true;
    queueMicrotask(() => {
      repaintQueued = false;
      decisions.reapply();
      highlight();
      cursor.invalidate();
    });
  };
  // Any other write of the page (a review note, a sign-off, Confirm) waits until the
  // changes typed before it are saved, and then carries the version that follows them.
  document.body.addEventListener("htmx:confirm", (event) => {
    if (!writes.busy || event.detail.elt === ws || event.detail.verb === "get") return;
    event.preventDefault();
    writes.idle().then(() => event.detail.issueRequest(true));
  });
  // A form in a dialog (Confirm) is a write too: it carries the version this page shows.
  document.body.addEventListener("htmx:configRequest", (event) => {
    const form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("#dialog");
    if (form && event.detail.verb === "post") event.detail.parameters.layer_version = version();
  });

  document.body.addEventListener("htmx:afterSwap", repaint);
  document.body.addEventListener("htmx:oobAfterSwap", repaint);

  document.body.addEventListener("htmx:afterSettle", () => {
    if (state.entity && !document.getElementById(`ent-${state.entity}`)) {
      // The entity went away (deleted, merged, undone): nothing is current any more.
      state.entity = null;
      state.mention = null;
    }
    if (state.merging && !document.getElementById(`ent-${state.merging}`)) {
      state.merging = null;
      setMode();
    }
    highlight();
    // Informative messages fade; errors stay until the next action.
    const message = $("#flash p.flash-info");
    if (message) setTimeout(() => message.isConnected && message.remove(), 5000);
  });
}
