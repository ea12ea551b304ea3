// The corpus export form. On the corpus page the "Export…" link loads the form (htmx)
// into a <dialog>; without JavaScript the same link opens the export page, and every
// field stays usable (the server ignores those that do not apply to the format).
(function () {
  'use strict';

  // Grey out what does not apply to the chosen format; a disabled fieldset is not sent.
  function sync(form) {
    const chosen = form.querySelector('input[name=format]:checked');
    for (const part of form.querySelectorAll('[data-for-format]')) {
      part.disabled = chosen !== null && part.dataset.forFormat !== chosen.value;
    }
  }

  document.addEventListener('change', (event) => {
    const form = event.target.closest('[data-export-form]');
    if (form) sync(form);
  });

  document.addEventListener('htmx:afterSwap', (event) => {
    const dialog = event.target.closest('dialog.export-dialog');
    if (!dialog) return;
    const form = dialog.querySelector('[data-export-form]');
    if (form) sync(form);
    if (!dialog.open) dialog.showModal();
    const first = dialog.querySelector('input[name=format]:checked');
    if (first) first.focus();
  });

  document.addEventListener('click', (event) => {
    if (!event.target.closest('[data-close-dialog]')) return;
    const dialog = event.target.closest('dialog');
    if (dialog) dialog.close();
  });

  // The answer is a download (the page stays) or, when an option is refused, the
  // export page with the reason: say which while the browser works.
  document.addEventListener('submit', (event) => {
    const form = event.target.closest('[data-export-form]');
    if (!form) return;
    const started = form.querySelector('[data-export-started]');
    if (started) started.hidden = false;
  });

  document.addEventListener('DOMContentLoaded', () => {
    for (const form of document.querySelectorAll('[data-export-form]')) sync(form);
  });
})();
