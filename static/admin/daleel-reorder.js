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

// A position the instructor typed, as opposed to one the library wrote.
document.addEventListener("input", (event) => {
  const input = event.target;
  if (input instanceof HTMLInputElement && /-position$/.test(input.name)) {
    input.dataset.typed = "";
  }
});

// django-nested-admin numbers every row from 0 whenever a row is added, moved or removed
// ("Position: 0" on the first, and a new row numbered before it is saved). Positions are
// 1, 2, … here, as they are stored; a new row at the end stays empty, which puts it after
// the others when saved (the help text's promise), unless it was moved or given a number.
function renumber(group) {
  const rows = [...group.querySelectorAll(".djn-inline-form:not(.djn-empty-form)")].filter(
    (row) => row.closest(".djn-group") === group && !/-empty$/.test(row.id),
  );
  const stored = (row) => row.dataset.isInitial === "true";
  const lastStored = rows.findLastIndex(stored);
  rows.forEach((row, index) => {
    const field = [...row.querySelectorAll('input[name$="-position"]')].find(
      (input) => input.closest(".djn-inline-form") === row,
    );
    if (!field) return;
    if (!stored(row) && index > lastStored && !("typed" in field.dataset)) {
      field.value = "";
    } else if (field.value !== "") {
      field.value = String(index + 1);
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const jQuery = window.django && window.django.jQuery;
  if (!jQuery) return;
  // The library announces its changes as jQuery events, after it has numbered the rows.
  jQuery(document).on("djnesting:mutate", (_event, inline) => {
    const group = inline && (inline.jquery ? inline[0] : inline);
    if (group instanceof HTMLElement) renumber(group);
  });
});
