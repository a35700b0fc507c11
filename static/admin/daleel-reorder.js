// The keyboard's way to reorder nested inline rows (django-nested-admin drags them by their
// heading): a position typed and confirmed (Enter or leaving the field) moves the row to that
// place among its siblings, so that the library, which numbers the rows by their order on the
// page when the form is sent, keeps what was typed.
"use strict";
document.addEventListener("change", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !/-position$/.test(input.name)) return;
  const row = input.closest(".djn-inline-form");
  const list = row && row.parentElement;
  if (!list || !list.classList.contains("djn-items")) return;
  const wanted = Number.parseInt(input.value, 10);
  if (!Number.isFinite(wanted)) return;
  const rows = [...list.children].filter(
    (item) => item !== row && item.matches(".djn-inline-form:not(.djn-empty-form)"),
  );
  const position = (item) => {
    const field = item.querySelector(`:scope input[name$="-position"]`);
    return field ? Number.parseInt(field.value, 10) : Number.POSITIVE_INFINITY;
  };
  const before = rows.find((item) => position(item) > wanted);
  const last = rows[rows.length - 1];
  list.insertBefore(row, before ?? (last ? last.nextSibling : null));
});
