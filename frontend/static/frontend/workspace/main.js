/* The annotation workspace: actions, modes and events.
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
 * that arrives for an entity that is no longer current is not shown (selection.js).
 * (``data-server-first`` on #workspace turns the painting in advance off: only the
 * key-to-paint benchmark uses it, to measure the page without it.)
 *
 * Offsets: offsets.js; the write queue: writes.js; keys: keys.js; the token cursor:
 * cursor.js; merge mode: merge.js.
 */
import { TokenCursor } from "./cursor.js";
import { $, batched } from "./dom.js";
import { bindKeys, CONFIDENTIAL_KEYS, TYPE_KEYS } from "./keys.js";
import { KeyMenu } from "./menu.js";
import { MergeMode } from "./merge.js";
import { selectionSpan as spanIn } from "./offsets.js";
import { OptimisticDecisions } from "./optimistic.js";
import { Selection } from "./selection.js";
import { flash, WriteQueue } from "./writes.js";
import "./structure.js"; // chain numbers, note pins, the narrow-screen drawer
import "./risk.js"; // the re-identification risk meter, refreshed when the layer changes

const ws = document.getElementById("workspace");
if (ws) start(ws);

function start(ws) {
  const editable = ws.dataset.editable === "1";
  // URL templates carry 0 where the entity or mention id goes (ids start at 1).
  const urlFor = (name, id) => ws.dataset[name].replace("/0/", `/${id}/`);
  const version = () => document.getElementById("ws-state").dataset.version;
  const textRoot = () => document.getElementById("doc-text");

  const modes = { review: false };
  const menu = new KeyMenu(document.getElementById("menu"));
  const decisions = new OptimisticDecisions();
  const cursor = new TokenCursor(textRoot);
  const current = new Selection((entity) => urlFor("entityUrl", entity));
  const merge = new MergeMode(ws, entityName);
  // current_entity: the entity whose panel is shown, for the server to redraw it.
  const writes = new WriteQueue(ws, () => ({ layer_version: version(), current_entity: current.shownEntity() }));
  writes.coverForms();

  function entityName(entity) {
    const row = $(`#ent-${entity} .ent-text`);
    const mark = $(`#doc-text mark[data-e="${entity}"]`);
    return row ? row.textContent : mark ? mark.textContent : `entity ${entity}`;
  }

  const notSent = (count) => `${count} later change${count > 1 ? "s were" : " was"} not sent.`;

  /** Send a change. Its answer may make an entity current, unless the user moved on. */
  function post(url, values, hooks) {
    if (!editable) return Promise.resolve(null);
    const seq = current.seq; // taken at the key press, not when the request leaves
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

  function applySelection(seq) {
    const box = document.getElementById("ws-state");
    const wanted = box.dataset.select;
    delete box.dataset.select;
    if (!wanted || seq !== current.seq) return;
    const [entity, mention] = wanted.split(":");
    const panel = document.getElementById("entity-panel");
    current.select(entity, mention, { load: !panel || panel.dataset.entity !== entity });
  }

  // ---- Modes ---------------------------------------------------------------------------
  function setMode() {
    const parts = [];
    if (modes.review) parts.push("Review mode: 1 2 3 decide, j/k or ←/→ move, Esc leaves");
    if (cursor.active) {
      const what = cursor.selecting ? "Selected" : "Cursor on";
      parts.push(`${what} “${cursor.describe()}”: Shift+arrows select, Enter annotates, Esc clears`);
    }
    $("#mode").textContent = parts.join(" · ");
    ws.classList.toggle("reviewing", modes.review);
    const button = $("#btn-review");
    if (button) button.setAttribute("aria-pressed", String(modes.review));
  }

  function toggleReview() {
    modes.review = !modes.review;
    if (modes.review) cursor.clear();
    setMode();
    if (!modes.review) return;
    // Start at the current entity if it still needs a decision, else at the next one that does.
    const row = current.entity && document.getElementById(`ent-${current.entity}`);
    if (row && row.classList.contains("undecided")) return current.scrollToMention(current.mention);
    if (row) return current.nextUndecided();
    const first = current.rows().find((r) => r.classList.contains("undecided")) || current.rows()[0];
    if (first) current.select(first.dataset.e, first.dataset.first, { scroll: true });
  }

  // ---- Actions ------------------------------------------------------------------------
  /** Decide on ``entity`` (default: the current one, read now, at the key press). */
  function decide(field, value, entity, extra = {}) {
    const target = entity ? String(entity) : current.entity;
    if (!target) return flash("Select an entity first (click a mention, or r for review mode).", "info");
    const early = field === "identifier_type" && editable && ws.dataset.serverFirst === undefined;
    const change = early ? decisions.apply(target, value) : null;
    post(urlFor("decisionUrl", target), { [field]: value, ...extra }, {
      answered: () => change && decisions.settle(change),
      cancelled: () => change && decisions.rollback(change),
      refused: (status, dropped) => {
        const restored = change ? decisions.rollback(change) : [];
        restored.forEach((mark) => mark.animate([{ outline: "3px solid #b42318" }, { outline: "3px solid transparent" }], 1800));
        const reason = $("#flash").textContent.trim();
        flash(`Not saved: the decision on “${entityName(target)}”. ${reason}${dropped ? ` ${notSent(dropped)}` : ""}`, "error");
      },
    });
    if (modes.review && field === "identifier_type" && target === current.entity && !current.nextUndecided()) {
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
    const id = mentionId || current.mention;
    if (!id) return flash("Select a mention first.", "info");
    if (kind === "delete") return post(urlFor("deleteUrl", id));
    if (kind === "split") return post(urlFor("splitUrl", id));
    if (kind === "retype") {
      const mark = $(`#doc-text mark[data-m="${id}"]`);
      return menu.open("Type of this mention", typeOptions((type) => post(urlFor("updateUrl", id), { entity_type: type })), mark);
    }
  }

  function startMerge() {
    if (!editable) return;
    if (!current.entity) return flash("Select the entity to merge into first.", "info");
    merge.start(current.entity);
  }

  function mergeWith(sourceEntity) {
    const target = merge.target;
    if (String(sourceEntity) === target) {
      return flash(`That is “${entityName(target)}” itself: click another entity, or Esc to cancel.`, "info");
    }
    merge.stop();
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

  function openSelectionMenu(span) {
    const options = typeOptions((type) => createMention(span, type));
    const mention = current.mention;
    if (mention) {
      options.push({ key: "e", label: "Resize the current mention to this", cls: "menu-resize", run: () => resizeMention(span, mention) });
    }
    menu.open("Annotate as", options, span.rect);
  }

  function openConfidentialMenu() {
    const entity = current.entity;
    if (!entity) return flash("Select an entity first.", "info");
    const options = Object.entries(CONFIDENTIAL_KEYS).map(([key, value]) => ({
      key,
      label: value.replace("_", " ").toLowerCase(),
      run: () => decide("confidential_status", value, entity),
    }));
    menu.open("Confidential status", options, document.getElementById("entity-panel"));
  }

  // ---- The token cursor (keyboard selection) ---------------------------------------
  function moveCursor(delta, extend, byLine) {
    if (cursor.active && byLine) cursor.moveLine(delta, extend);
    else if (cursor.active) cursor.move(delta, extend);
    else {
      // Start at the current mention, else at the first word in view.
      const mark = current.mention && $(`#doc-text mark[data-m="${current.mention}"]`);
      const run = mark && (mark.matches("[data-o]") ? mark : mark.querySelector("[data-o]"));
      cursor.place(run ? Number(run.dataset.o) : null);
    }
    setMode();
  }

  /** Enter: the type menu for the cursor's tokens, else for the browser's selection. */
  function annotate() {
    const span = cursor.active ? cursor.span() : spanIn(textRoot());
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
    const target = Array.from(textRoot().querySelectorAll("[data-o]"))
      .filter((run) => Number(run.dataset.o) <= offset)
      .pop();
    if (!target) return;
    target.scrollIntoView({ block: "center", behavior: "smooth" });
    target.classList.add("flash-run");
    setTimeout(() => target.classList.remove("flash-run"), 2400);
  }

  /** Esc closes what is open; with nothing open it clears the cursor, then leaves review
   * mode, then deselects. */
  function escape() {
    const open = menu.isOpen || dialogOpen() || merge.active || cursor.selecting;
    menu.close();
    closeDialogs();
    merge.stop();
    if (cursor.selecting) cursor.unselect();
    else if (!open && cursor.active) cursor.clear();
    else if (!open && modes.review) modes.review = false;
    else if (!open) current.select(null, null, { load: false });
    setMode();
  }

  function takeSuggestion() {
    const take = $("#accept-suggestion");
    if (take && take.dataset.entity === current.entity) return take.click();
    const loading = current.entity && !current.shownEntity();
    return flash(loading ? "The entity's panel is still loading: press g again." : "No engine suggestion to take for this entity.", "info");
  }

  // ---- Events ------------------------------------------------------------------------
  bindKeys({
    editable,
    menu,
    reviewing: () => modes.review,
    dialogOpen,
    escape,
    undo: () => post(ws.dataset.undoUrl),
    help: () => ($("#help").hidden = false),
    toggleReview,
    step: (delta) => current.step(delta),
    stepMention: (delta) => current.stepMention(delta),
    decide: (value) => decide("identifier_type", value),
    confidential: openConfidentialMenu,
    occurrences: () => (current.entity ? post(urlFor("occurrencesUrl", current.entity)) : flash("Select an entity first.", "info")),
    takeSuggestion,
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
      const span = spanIn(textRoot());
      if (span) openSelectionMenu(span);
    }, 0);
  });

  document.addEventListener("click", (event) => {
    const target = event.target;
    if (target.closest("#menu")) return;
    if (!document.getElementById("menu").hidden && !window.getSelection().toString()) menu.close();
    const mark = target.closest("#doc-text mark[data-m]");
    if (mark && window.getSelection().isCollapsed) {
      if (merge.active) return mergeWith(mark.dataset.e);
      return current.select(mark.dataset.e, mark.dataset.m);
    }
    const entityButton = target.closest(".ent-btn");
    if (entityButton) {
      if (merge.active) return mergeWith(entityButton.dataset.e);
      return current.select(entityButton.dataset.e, entityButton.dataset.m, { scroll: true });
    }
    const jump = target.closest("[data-jump]");
    if (jump) {
      if (jump.hasAttribute("data-close-dialog")) closeDialogs();
      const mark = $(`#doc-text mark[data-m="${jump.dataset.jump}"]`);
      if (mark) current.select(mark.dataset.e, jump.dataset.jump, { scroll: true, load: !!jump.closest("#dialog") });
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
      if (kind === "decision") {
        // "Take it" (g): the server decides what the suggestion writes (see take_suggestion).
        const extra = action.dataset.take ? { take: action.dataset.take } : {};
        return decide(action.dataset.field, action.dataset.value, action.dataset.entity, extra);
      }
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

  // ?at=<offset> (a link from a release's re-identification report): show that place.
  const at = new URLSearchParams(window.location.search).get("at");
  if (at !== null && /^\d+$/.test(at)) jumpToOffset(Number(at));

  // Right after a swap (before the browser paints): decisions still on their way are
  // painted again on the new elements, the current entity outlined, the cursor redrawn.
  const repaint = batched(() => {
    decisions.reapply();
    current.highlight();
    cursor.invalidate();
  });
  document.body.addEventListener("htmx:afterSwap", repaint);
  document.body.addEventListener("htmx:oobAfterSwap", repaint);

  document.body.addEventListener("htmx:afterSettle", () => {
    current.forgetIfGone();
    merge.stopIfGone();
    current.highlight();
    // Informative messages fade; errors stay until the next action.
    const message = $("#flash p.flash-info");
    if (message) setTimeout(() => message.isConnected && message.remove(), 5000);
  });
}
