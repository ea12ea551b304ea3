/* What the text shows of an annotation's structure beyond each mention's colour and
 * tag: chain numbers (chains.js), note pins (notes.js) and, on a narrow screen, the
 * side column as a drawer with tabs (drawer.js). Swaps replace lines of text and
 * panels, so the numbers and pins are redrawn once after each answer.
 */
import { numberChains } from "./chains.js";
import { batched } from "./dom.js";
import { startDrawer } from "./drawer.js";
import { markNotes } from "./notes.js";

if (document.getElementById("workspace")) {
  const redraw = () => {
    numberChains();
    markNotes();
  };
  startDrawer();
  redraw();
  // One answer settles several elements (out-of-band swaps): redraw once for all of them.
  document.body.addEventListener("htmx:afterSettle", batched(redraw));
}
