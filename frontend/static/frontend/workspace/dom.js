/* Small DOM helpers shared by the workspace modules. */

export const $ = (selector) => document.querySelector(selector);
export const $$ = (selector) => Array.from(document.querySelectorAll(selector));

/** ``fn`` wrapped so that however many times it is called in one task it runs once, in a
 * microtask: one HTMX answer swaps several elements (out-of-band swaps), and what is
 * redrawn after a swap is redrawn once for all of them, before the browser paints. */
export function batched(fn) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      fn();
    });
  };
}
