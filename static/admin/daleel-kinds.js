// A question's kind shapes its form, on the question's page and for each question on the
// quiz's page (quizzes/instructors/forms.py, KindShapesFormMixin):
// - only the sections the kind uses show: choices for one answer, several answers and true or
//   false; accepted numbers for a number; accepted answers for a short answer; pairs for
//   matching; items for ordering. A section that holds rows stays, so that they can
//   be deleted; the server refuses what does not fit the kind either way.
// - choosing true or false on a question without choices adds its two, True and False in
//   both languages; the instructor ticks the right one.
// Without JavaScript every section shows and the same rules are checked on saving.
"use strict";
(() => {
  const CHOICE_KINDS = ["single", "multiple", "truefalse"];
  const SECTIONS = {
    choices: (kind) => CHOICE_KINDS.includes(kind),
    numerical_answers: (kind) => kind === "numerical",
    accepted_texts: (kind) => kind === "short",
    pairs: (kind) => kind === "matching",
    order_items: (kind) => kind === "ordering",
  };

  // "questions-0-kind" → "questions-0-", "kind" → "".
  const prefixOf = (select) => select.name.slice(0, -"kind".length);

  const ownRows = (group) =>
    [...group.querySelectorAll(".djn-inline-form:not(.djn-empty-form)")].filter(
      (row) => row.closest(".djn-group") === group && !/-empty$/.test(row.id),
    );

  const groupOf = (select, section) => document.getElementById(`${prefixOf(select)}${section}-group`);

  function shape(select) {
    if (select.name.includes("__prefix__")) return;
    for (const [section, uses] of Object.entries(SECTIONS)) {
      const group = groupOf(select, section);
      if (!group) continue;
      const shown = uses(select.value) || ownRows(group).length > 0;
      group.classList.toggle("daleel-unused-by-kind", !shown);
    }
  }

  function addTrueAndFalse(select) {
    const group = groupOf(select, "choices");
    if (!group || ownRows(group).length > 0) return;
    const add = [...group.querySelectorAll(".djn-add-handler")].find(
      (link) => link.closest(".djn-group") === group,
    );
    if (!add) return;
    const folded = group.querySelector("details");
    if (folded) folded.open = true;
    const texts = [
      { en: select.dataset.trueEn, ar: select.dataset.trueAr },
      { en: select.dataset.falseEn, ar: select.dataset.falseAr },
    ];
    for (const text of texts) {
      add.click();
      const row = ownRows(group).at(-1);
      if (!row) return;
      for (const language of ["en", "ar"]) {
        const field = row.querySelector(`[name$="-text_${language}"]`);
        if (field) {
          field.value = text[language];
          field.dispatchEvent(new Event("input", { bubbles: true }));
          field.dispatchEvent(new Event("change", { bubbles: true }));
        }
      }
    }
    const tick = ownRows(group)[0].querySelector('[name$="-is_correct"]');
    if (tick) tick.focus();
  }

  const kindSelects = (root) => root.querySelectorAll("select[data-question-kind]");

  document.addEventListener("change", (event) => {
    const select = event.target;
    if (!(select instanceof HTMLSelectElement) || !("questionKind" in select.dataset)) return;
    if (select.value === "truefalse") addTrueAndFalse(select);
    shape(select);
  });

  // A question row added on the quiz's page, or a row added or removed in a section.
  const reshapeAll = () => kindSelects(document).forEach(shape);
  document.addEventListener("formset:added", reshapeAll);
  document.addEventListener("DOMContentLoaded", () => {
    reshapeAll();
    const jQuery = window.django && window.django.jQuery;
    if (jQuery) jQuery(document).on("djnesting:mutate", reshapeAll);
  });
})();
