// A <select data-autosubmit> submits its form when it changes: the filters apply at
// once, without an inline onchange handler (the Content-Security-Policy allows none).
// Without JavaScript the form's <noscript> button does the same.
document.addEventListener("change", (event) => {
  const field = event.target;
  if (field instanceof HTMLSelectElement && field.hasAttribute("data-autosubmit") && field.form) {
    field.form.requestSubmit();
  }
});
