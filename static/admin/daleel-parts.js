// A question's parts on the quiz's page and on the question's own (quizzes/instructors/parts.py):
// - a question shows its kind's section (choices for one answer, several answers and true or
//   false; accepted numbers; accepted answers; pairs; items). Changing the kind brings that
//   section from the page's one template of it; a section that still holds rows stays, so that
//   they can be deleted (the server refuses what does not fit the kind either way). A section
//   out of use is disabled, so it is not sent.
// - "Add" copies the page's template of a row into the section; "Remove" takes a new row away.
// - choosing true or false on a question without choices adds its two, True and False in
//   both languages; the instructor ticks the right one.
// - rows move by dragging their heading, or by typing a position (the keyboard's way); the
//   positions are renumbered 1, 2, … as they stand.
// - a new question ("Add another question", Django's inlines.js) comes with its controls
//   disabled, as its template is (nothing that is only a template is sent): they are enabled,
//   and its kind's section added.
// - before the form is sent: file inputs left empty are not sent, and a form that would send
//   more than the server takes (fields, files, bytes) is stopped with a message, nothing lost.
// Without JavaScript the stored rows are edited and saved as they stand.
"use strict";
(() => {
  const sectionOfKind = {};
  const template = (kind, section) => document.getElementById(`daleel-${kind}-${section}`);

  // Every id-like attribute of `root` and its descendants, `from` written `to`.
  const NAMED = ["id", "name", "for", "aria-describedby", "aria-labelledby"];
  function rename(root, from, to) {
    for (const element of [root, ...root.querySelectorAll("*")]) {
      for (const attribute of NAMED) {
        const value = element.getAttribute(attribute);
        if (value && value.includes(from)) element.setAttribute(attribute, value.split(from).join(to));
      }
    }
  }

  const setDisabled = (root, disabled) => {
    for (const control of root.querySelectorAll("input, select, textarea, button")) {
      control.disabled = disabled;
    }
  };

  // "questions-3-kind" → "questions-3-"; "kind" → "".
  const questionPrefix = (select) => select.name.slice(0, -"kind".length);
  const questionOf = (select) => select.closest(".inline-related") || select.form;
  const sectionsBox = (question) =>
    question.matches(".inline-related")
      ? question.querySelector(":scope > .daleel-sections")
      : question.querySelector(".daleel-sections");
  const totalOf = (group) => group.querySelector(':scope > input[name$="-TOTAL_FORMS"]');
  const groupPrefix = (group) => totalOf(group).name.slice(0, -"-TOTAL_FORMS".length);
  const rowsOf = (group) => [...group.querySelectorAll(":scope > .daleel-part-rows > .daleel-part")];

  function insertSection(box, prefix, section) {
    const source = template("section", section);
    if (!source) return null;
    const group = source.content.firstElementChild.cloneNode(true);
    rename(group, source.dataset.prefix, `${prefix}${section}`);
    box.append(group);
    revealAdd(group);
    return group;
  }

  function shape(select, { added = false } = {}) {
    if (select.disabled || select.name.includes("__prefix__")) return;
    const box = sectionsBox(questionOf(select));
    if (!box) return;
    const prefix = questionPrefix(select);
    const wanted = sectionOfKind[select.value];
    let group = box.querySelector(`:scope > [data-section="${wanted}"]`);
    if (!group && wanted) group = insertSection(box, prefix, wanted);
    for (const each of box.querySelectorAll(":scope > .daleel-section")) {
      const shown = each === group || rowsOf(each).length > 0;
      each.hidden = !shown;
      setDisabled(each, !shown);
    }
    if (added && group && select.value === "truefalse") addTrueAndFalse(select, group);
  }

  function addRow(group) {
    const source = template("row", group.dataset.section);
    const total = totalOf(group);
    const index = Number.parseInt(total.value, 10);
    const row = source.content.firstElementChild.cloneNode(true);
    const prefix = groupPrefix(group);
    rename(row, `${source.dataset.prefix}-__prefix__`, `${prefix}-${index}`);
    rename(row, source.dataset.prefix, prefix);
    group.querySelector(":scope > .daleel-part-rows").append(row);
    total.value = String(index + 1);
    renumber(group.querySelector(":scope > .daleel-part-rows"));
    return row;
  }

  function removeRow(row) {
    const group = row.closest(".daleel-section");
    const prefix = groupPrefix(group);
    const index = (element) => Number.parseInt(element.id.slice(prefix.length + 1), 10);
    const gone = index(row);
    row.remove();
    for (const later of rowsOf(group).filter((each) => index(each) > gone)) {
      rename(later, `${prefix}-${index(later)}-`, `${prefix}-${index(later) - 1}-`);
      later.id = `${prefix}-${index(later) - 1}`;
    }
    const total = totalOf(group);
    total.value = String(Number.parseInt(total.value, 10) - 1);
    renumber(group.querySelector(":scope > .daleel-part-rows"));
  }

  function addTrueAndFalse(select, group) {
    if (rowsOf(group).length > 0) return;
    const words = template("section", "choices").dataset;
    const texts = [
      { en: words.trueEn, ar: words.trueAr },
      { en: words.falseEn, ar: words.falseAr },
    ];
    for (const text of texts) {
      const row = addRow(group);
      for (const language of ["en", "ar"]) {
        const field = row.querySelector(`[name$="-text_${language}"]`);
        if (field) field.value = text[language];
      }
    }
    const tick = rowsOf(group)[0].querySelector('[name$="-is_correct"]');
    if (tick) tick.focus();
  }

  const revealAdd = (root) => {
    for (const button of root.querySelectorAll(".daleel-add-part")) button.hidden = false;
  };

  // Positions: rows listed in their container, numbered 1, 2, … as stored; a new row at the
  // end keeps an empty position (it goes after the others when saved, as its help says) unless
  // it was moved or given a number.
  const rowSelector = ":scope > .daleel-part, :scope > .inline-related:not(.empty-form)";
  const positionOf = (row) =>
    row.matches(".inline-related")
      ? row.querySelector(':scope > fieldset input[name$="-position"]')
      : row.querySelector('input[name$="-position"]');

  function renumber(list) {
    const rows = [...list.querySelectorAll(rowSelector)];
    const stored = (row) => row.classList.contains("has_original");
    const lastStored = rows.findLastIndex(stored);
    rows.forEach((row, index) => {
      const field = positionOf(row);
      if (!field) return;
      if (!stored(row) && index > lastStored && !("typed" in field.dataset)) {
        field.value = "";
      } else if (field.value !== "" || row.dataset.moved !== undefined) {
        field.value = String(index + 1);
      }
    });
  }

  document.addEventListener("input", (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && /-position$/.test(input.name)) {
      input.dataset.typed = "";
    }
  });

  // A position typed and confirmed (Enter or leaving the field) moves the row to that place.
  function moveToTypedPosition(input) {
    const row = input.closest(".daleel-part, .inline-related");
    const list = row && row.parentElement;
    if (!list || positionOf(row) !== input) return;
    const wanted = Number.parseInt(input.value, 10);
    if (!Number.isFinite(wanted)) return;
    const others = [...list.querySelectorAll(rowSelector)].filter((each) => each !== row);
    const position = (each) => {
      const field = positionOf(each);
      const value = field ? Number.parseInt(field.value, 10) : Number.NaN;
      return Number.isFinite(value) ? value : Number.POSITIVE_INFINITY;
    };
    const before = others.find((each) => position(each) > wanted);
    const last = others.at(-1);
    list.insertBefore(row, before ?? (last ? last.nextSibling : null));
  }

  // Dragging a row by its heading among its siblings.
  let dragged = null;
  document.addEventListener("dragstart", (event) => {
    const heading = event.target instanceof Element && event.target.closest(".daleel-row-heading");
    if (!heading) return;
    dragged = heading.parentElement;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.id);
    dragged.classList.add("daleel-dragging");
  });
  document.addEventListener("dragover", (event) => {
    if (!dragged || !(event.target instanceof Element)) return;
    const over = event.target.closest(".daleel-part, .inline-related");
    if (!over || over === dragged || over.parentElement !== dragged.parentElement) return;
    if (over.classList.contains("empty-form")) return;
    event.preventDefault();
    const box = over.getBoundingClientRect();
    const after = event.clientY > box.top + box.height / 2;
    over.parentElement.insertBefore(dragged, after ? over.nextSibling : over);
  });
  document.addEventListener("drop", (event) => {
    if (dragged) event.preventDefault();
  });
  document.addEventListener("dragend", () => {
    if (!dragged) return;
    dragged.classList.remove("daleel-dragging");
    dragged.dataset.moved = "";
    renumber(dragged.parentElement);
    dragged = null;
  });

  function makeDraggable(root) {
    for (const heading of root.querySelectorAll(".daleel-row-heading")) {
      const row = heading.parentElement;
      if (row.matches(".empty-form")) continue;
      heading.draggable = true;
    }
  }

  document.addEventListener("change", (event) => {
    const target = event.target;
    if (target instanceof HTMLSelectElement && "questionKind" in target.dataset) {
      shape(target, { added: true });
    } else if (target instanceof HTMLInputElement && /-position$/.test(target.name)) {
      moveToTypedPosition(target);
      renumber(target.closest(".daleel-part, .inline-related").parentElement);
    }
  });

  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element && event.target.closest("button");
    if (!button) return;
    if (button.classList.contains("daleel-add-part")) {
      const row = addRow(button.closest(".daleel-section"));
      makeDraggable(row);
      const first = row.querySelector("textarea, input:not([type=hidden]), select");
      if (first) first.focus();
    } else if (button.classList.contains("daleel-remove-part")) {
      const section = button.closest(".daleel-section");
      removeRow(button.closest(".daleel-part"));
      const add = section.querySelector(":scope > .daleel-add-part");
      if (add) add.focus();
    }
  });

  // A question added on the quiz's page (Django's inlines.js copies the disabled template row).
  document.addEventListener("formset:added", (event) => {
    const row = event.target;
    if (!(row instanceof Element) || !row.matches(".inline-related")) return;
    setDisabled(row, false);
    rename(row, `${event.detail.formsetName}-__prefix__`, row.id);
    makeDraggable(row);
    const select = row.querySelector("select[data-question-kind]");
    if (select) shape(select, { added: true });
  });

  // What one save may send (config/settings.py's DATA_UPLOAD_* limits, said on the page).
  function tooMuch(form, submitter) {
    const limits = document.getElementById("daleel-upload-limits");
    if (!limits) return null;
    const data = new FormData(form, submitter);
    let fields = 0;
    let files = 0;
    let bytes = 0;
    const encoder = new TextEncoder();
    for (const [name, value] of data) {
      if (value instanceof File) {
        files += 1;
      } else {
        fields += 1;
        bytes += encoder.encode(name).length + encoder.encode(value).length + 2;
      }
    }
    const over = [];
    const limit = (key) => Number.parseInt(limits.dataset[key], 10);
    if (fields > limit("maxFields")) over.push(limits.dataset.fieldsMessage);
    if (files > limit("maxFiles")) over.push(limits.dataset.filesMessage);
    if (bytes > limit("maxBytes")) over.push(limits.dataset.bytesMessage);
    if (over.length === 0) return null;
    return [limits.dataset.intro, ...over, limits.dataset.advice]
      .join(" ")
      .replace("{fields}", fields.toLocaleString())
      .replace("{files}", files.toLocaleString())
      .replace("{bytes}", Math.ceil(bytes / 1048576).toLocaleString());
  }

  const emptyFileInputs = (form) =>
    [...form.querySelectorAll('input[type="file"]')].filter((input) => !input.disabled && input.files.length === 0);

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.querySelector(".daleel-sections")) return;
    // An empty file input keeps the stored image either way: not sent, it is not a file part.
    const empty = emptyFileInputs(form);
    for (const input of empty) input.disabled = true;
    const problem = tooMuch(form, event.submitter);
    if (!problem) return;
    event.preventDefault();
    for (const input of empty) input.disabled = false;
    let note = document.getElementById("daleel-too-much");
    if (!note) {
      note = document.createElement("p");
      note.id = "daleel-too-much";
      note.className = "errornote";
      note.setAttribute("role", "alert");
      note.tabIndex = -1;
      form.prepend(note);
    }
    note.textContent = problem;
    note.focus();
  });
  // Back to a page the browser kept: its file inputs usable again.
  window.addEventListener("pageshow", () => {
    for (const input of document.querySelectorAll('input[type="file"][data-daleel-unsent]')) {
      input.disabled = false;
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    for (const source of document.querySelectorAll('template[id^="daleel-section-"]')) {
      const section = source.id.slice("daleel-section-".length);
      for (const kind of source.dataset.kinds.split(" ")) sectionOfKind[kind] = section;
    }
    revealAdd(document);
    makeDraggable(document);
    for (const select of document.querySelectorAll("select[data-question-kind]")) shape(select);
  });
})();
