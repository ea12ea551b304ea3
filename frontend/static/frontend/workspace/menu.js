/* A small floating menu of keyed choices (types after a selection, confidential
 * status): every option has a key, a label and an action. */

export class KeyMenu {
  constructor(element) {
    this.element = element;
    this.keys = null; // key -> action while the menu is open
  }

  get isOpen() {
    return this.keys !== null;
  }

  open(title, options, anchor) {
    const menu = this.element;
    menu.innerHTML = "";
    const heading = document.createElement("p");
    heading.className = "menu-title";
    heading.textContent = title;
    menu.appendChild(heading);
    this.keys = {};
    for (const option of options) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `menu-item ${option.cls || ""}`;
      button.setAttribute("role", "menuitem");
      button.innerHTML = "<kbd></kbd> <span></span>";
      button.querySelector("kbd").textContent = option.key;
      button.querySelector("span").textContent = option.label;
      button.addEventListener("click", () => {
        this.close();
        option.run();
      });
      this.keys[option.key] = option.run;
      menu.appendChild(button);
    }
    const rect = anchor && anchor.getBoundingClientRect ? anchor.getBoundingClientRect() : anchor;
    menu.hidden = false;
    const top = rect ? rect.bottom + 6 : 120;
    const left = rect ? rect.left : 120;
    menu.style.top = `${Math.min(top, window.innerHeight - menu.offsetHeight - 8)}px`;
    menu.style.left = `${Math.min(left, window.innerWidth - menu.offsetWidth - 8)}px`;
    menu.querySelector("button").focus({ preventScroll: true });
  }

  close() {
    this.element.hidden = true;
    this.keys = null;
  }

  /** Run the option bound to ``key``; true if there was one. */
  press(key) {
    const run = this.keys && this.keys[key.toLowerCase()];
    if (!run) return false;
    this.close();
    run();
    return true;
  }
}
