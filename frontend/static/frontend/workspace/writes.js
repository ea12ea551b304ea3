/* Writes to the server: one at a time, in order, each with the layer version this page
 * last saw (optimistic concurrency), and messages when one cannot be saved.
 *
 * A write that is refused (403 not yours, 409 stale, 422 refused, 400, a server error or
 * no answer at all) cancels every write queued after it: those were made while looking
 * at a page that assumed the refused change, so sending them could apply a decision to
 * a state the annotator never saw. Each write is told what became of it (``answered``,
 * ``refused``, ``cancelled``) so that the page can undo what it showed in advance. */

const UNREACHABLE = "The server could not be reached: your last change was NOT saved. Try again.";

export function flash(message, level) {
  const box = document.getElementById("flash");
  box.innerHTML = "";
  if (!message) return;
  const p = document.createElement("p");
  p.className = `flash-${level || "info"}`;
  p.textContent = message;
  box.appendChild(p);
}

export const accepted = (status) => status >= 200 && status < 400;

export class WriteQueue {
  /**
   * @param source the element the requests come from (HTMX reads its attributes)
   * @param context () => extra values every request carries (version, current entity),
   *   read when the request leaves (the version of the previous answer)
   */
  constructor(source, context) {
    this.source = source;
    this.context = context;
    this.items = [];
    this.running = false;
    this.status = null; // the status of the request in flight, once answered
    this.waiters = []; // idle() promises
    // Answers the workspace swaps even when they are not 2xx: 403 (not yours), 409 (stale:
    // the current state comes with it), 422 (refused, with the reason).
    htmx.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "(400|403|409|422)", swap: true, error: false },
      { code: "[45]..", swap: false, error: true },
    ];
    // A swapped element gets its new classes at once, not after htmx's settle delay: the
    // page repaints decisions it shows in advance right after each swap (optimistic.js).
    htmx.config.attributesToSettle = [];
    source.addEventListener("htmx:afterRequest", (event) => {
      if (event.detail.elt === source) this.status = event.detail.xhr ? event.detail.xhr.status : 0;
    });
    window.addEventListener("beforeunload", (event) => {
      if (this.busy) {
        event.preventDefault();
        event.returnValue = "";
      }
    });
    document.body.addEventListener("htmx:sendError", () => flash(UNREACHABLE, "error"));
    document.body.addEventListener("htmx:responseError", (event) => {
      const code = event.detail.xhr.status;
      flash(
        code === 404
          ? "That mention or entity no longer exists (it was changed meanwhile). Reload the page to see the current state."
          : `The server could not save this change (error ${code}). Reload the page; nothing else was lost.`,
        "error"
      );
    });
    this.showBusy(); // aria-busy="false" also says that the page's script is running
  }

  get busy() {
    return this.running || this.items.length > 0;
  }

  /**
   * POST after the previous write has been answered. ``hooks`` (all optional):
   * answered(status) on a 2xx/3xx answer (already swapped in), refused(status, dropped)
   * when the server refused it or could not be reached (``dropped``: how many queued
   * writes were cancelled with it), cancelled() when an earlier write was refused.
   * Resolves to the status (0: no answer, null: cancelled).
   */
  post(url, values, hooks) {
    return new Promise((resolve) => {
      this.items.push({ url, values, hooks: hooks || {}, resolve });
      this.showBusy();
      if (!this.running) this.pump();
    });
  }

  async pump() {
    this.running = true;
    while (this.items.length) {
      const item = this.items.shift();
      const status = await this.send(item);
      if (accepted(status)) {
        if (item.hooks.answered) item.hooks.answered(status);
      } else {
        // Undo in the reverse order of the changes: the latest first.
        const dropped = this.items.splice(0).reverse();
        for (const later of dropped) {
          if (later.hooks.cancelled) later.hooks.cancelled();
          later.resolve(null);
        }
        if (item.hooks.refused) item.hooks.refused(status, dropped.length);
      }
      item.resolve(status);
    }
    this.running = false;
    this.showBusy();
    this.waiters.splice(0).forEach((resolve) => resolve());
  }

  /** Resolves once every queued write has been answered (or cancelled). */
  idle() {
    return this.busy ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  async send(item) {
    this.status = null;
    const values = Object.assign(this.context(), item.values || {});
    try {
      await htmx.ajax("POST", item.url, { source: this.source, swap: "none", values });
    } catch (error) {
      return 0;
    }
    return this.status === null ? 0 : this.status;
  }

  /** The page's other writes (htmx forms: a review note, a sign-off, Confirm) wait until
   * the queued writes are answered, so they carry the version that follows them. Confirm
   * keeps the version its dialog was drawn for (a hidden field): its checks are those of
   * that version, and a later one is refused as stale and checked again. */
  coverForms() {
    document.body.addEventListener("htmx:confirm", (event) => {
      if (!this.busy || event.detail.elt === this.source || event.detail.verb === "get") return;
      event.preventDefault();
      this.idle().then(() => event.detail.issueRequest(true));
    });
  }

  /** aria-busy on the workspace while writes are queued or in flight (tests wait on it). */
  showBusy() {
    this.source.setAttribute("aria-busy", String(this.busy));
  }
}
