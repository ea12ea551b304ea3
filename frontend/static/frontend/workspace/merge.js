/* Merge mode: "m" takes the current entity as the one to merge into; the next click on
 * another entity (a mention in the text or a row of the list) merges it in; Esc cancels.
 * While it lasts the page says so: a banner under the toolbar ("Merging into “X”") and a
 * "copy" cursor over what can be merged in (workspace.css, .ws.merging).
 */

export class MergeMode {
  /**
   * @param ws the workspace element (gets the class "merging")
   * @param nameOf (entity id) => the entity's text, for the banner
   */
  constructor(ws, nameOf) {
    this.ws = ws;
    this.nameOf = nameOf;
    this.target = null; // the entity merged into while the mode lasts
  }

  get active() {
    return this.target !== null;
  }

  start(entity) {
    this.target = String(entity);
    this.show();
  }

  stop() {
    this.target = null;
    this.show();
  }

  /** The entity merged into went away (undone, merged elsewhere): the mode ends. */
  stopIfGone() {
    if (this.active && !document.getElementById(`ent-${this.target}`)) this.stop();
  }

  show() {
    this.ws.classList.toggle("merging", this.active);
    let banner = document.getElementById("merge-banner");
    if (!this.active) {
      if (banner) banner.remove();
      return;
    }
    if (!banner) {
      banner = document.createElement("p");
      banner.id = "merge-banner";
      banner.className = "merge-banner";
      banner.setAttribute("role", "status");
      (this.ws.querySelector(".ws-top") || this.ws).appendChild(banner);
    }
    const esc = document.createElement("kbd");
    esc.textContent = "Esc";
    banner.replaceChildren(`Merging into “${this.nameOf(this.target)}”: click an entity to merge it in, `, esc, " cancels");
  }
}
