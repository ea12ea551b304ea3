/* Writes to the server: one at a time, in order, each with the layer version this page
 * last saw (optimistic concurrency), and messages when one cannot be saved. */

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

export class WriteQueue {
  /**
   * @param source the element the requests come from (HTMX reads its attributes)
   * @param context () => extra values every request carries (version, current entity)
   */
  constructor(source, context) {
    this.source = source;
    this.context = context;
    this.queue = Promise.resolve();
    this.inFlight = 0;
    // Answers the workspace swaps even when they are not 2xx: 403 (not yours), 409 (stale:
    // the current state comes with it), 422 (refused, with the reason).
    htmx.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "(403|409|422)", swap: true, error: false },
      { code: "[45]..", swap: false, error: true },
    ];
    window.addEventListener("beforeunload", (event) => {
      if (this.inFlight > 0) {
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
  }

  /** POST after the previous write has been answered; ``after`` runs on the answer. */
  post(url, values, after) {
    this.inFlight += 1;
    this.queue = this.queue
      .then(() => {
        const request = { source: this.source, swap: "none", values: Object.assign(this.context(), values || {}) };
        const answered = after ? after() : null;
        return htmx.ajax("POST", url, request).then(() => answered && answered());
      })
      .catch(() => flash(UNREACHABLE, "error"))
      .finally(() => {
        this.inFlight -= 1;
      });
    return this.queue;
  }
}
