/* The re-identification risk meter (#risk-panel): the rank of the protected person
 * among the background's people, for the layer as currently masked.
 *
 * The panel is an htmx element (hx-get: the layer's risk partial). It fetches itself
 * when the page loads, again whenever the layer's version changes (the "ws-version"
 * event dispatched here when #ws-state arrives with a new data-version after a
 * change), and every 2 s while the reading is still being computed (only a pending
 * panel carries that trigger, so polling stops once it is ready). Each request carries
 * the version this page last saw; the server answers for the layer as it is now.
 */
const state = () => document.getElementById("ws-state");
let seen = state() ? state().dataset.version : null;

document.body.addEventListener("htmx:afterSettle", () => {
  const box = state();
  if (!box || box.dataset.version === seen) return;
  seen = box.dataset.version;
  document.body.dispatchEvent(new CustomEvent("ws-version", { detail: { version: seen } }));
});

document.body.addEventListener("htmx:configRequest", (event) => {
  if (event.detail.elt.id === "risk-panel" && seen !== null) event.detail.parameters.version = seen;
});
