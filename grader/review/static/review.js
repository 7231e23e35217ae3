// The review app's keys (no build step; the pages work without it, by their links and forms).
// j/k next/previous in the group, 1-9 a rubric item (else a part in the score form), c comment on the selected lines,
// s save and next, u undo the last line, r reference and diff, ? this help.
(function () {
  "use strict";
  var selected = null; // {file, start, end}

  function $(id) { return document.getElementById(id); }

  function go(id) {
    var link = $(id);
    if (link) { window.location.assign(link.getAttribute("href")); }
  }

  function mark() {
    var rows = document.querySelectorAll("tr[data-line]");
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var file = row.closest(".file").getAttribute("data-file");
      var n = parseInt(row.getAttribute("data-line"), 10);
      var on = selected && selected.file === file && n >= selected.start && n <= selected.end;
      row.classList.toggle("selected", !!on);
    }
  }

  function pick(event) {
    var row = event.target.closest("tr[data-line]");
    if (!row) { return; }
    var file = row.closest(".file").getAttribute("data-file");
    var n = parseInt(row.getAttribute("data-line"), 10);
    if (event.shiftKey && selected && selected.file === file) {
      selected = {file: file, start: Math.min(selected.anchor, n), end: Math.max(selected.anchor, n), anchor: selected.anchor};
    } else {
      selected = {file: file, start: n, end: n, anchor: n};
    }
    mark();
  }

  function comment() {
    var form = $("comment-form");
    if (!form) { return; }
    if (selected) {
      $("comment-file").value = selected.file;
      $("comment-start").value = String(selected.start);
      $("comment-end").value = String(selected.end);
    }
    $("comment-text").focus();
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  function help(show) {
    var box = $("help");
    if (box) { box.hidden = show === undefined ? !box.hidden : !show; }
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("table.code")) { pick(event); }
    if (event.target.id === "help-button") { help(); }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { help(false); if (typing(event.target)) { event.target.blur(); } return; }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (typing(event.target)) {
      if (event.key === "Enter" && event.target.id === "comment-text" && !event.shiftKey) {
        event.preventDefault();
        $("comment-form").submit();
      }
      return;
    }
    var key = event.key;
    if (key === "j") { go("next"); }
    else if (key === "k") { go("prev"); }
    else if (key === "?") { help(); }
    else if (key === "c") { event.preventDefault(); comment(); }
    else if (key === "r") { var ref = $("reference"); if (ref) { ref.open = !ref.open; if (ref.open) { ref.scrollIntoView(); } } }
    else if (key === "u") {
      var undos = document.querySelectorAll("form.undo");
      if (undos.length) { undos[undos.length - 1].submit(); }
    }
    else if (key === "s") {
      var form = $("adjust");
      if (!form) { return; }
      var given = $("adjust-points").value || $("adjust-set").value;
      if (given) { $("adjust-next").value = "1"; form.submit(); }
      else { go("next"); }
    }
    else if (/^[1-9]$/.test(key) && $("item-" + key)) { $("item-" + key).submit(); }
    else if (/^[1-9]$/.test(key)) {
      var part = $("adjust-part");
      if (part && part.options.length > parseInt(key, 10)) {
        event.preventDefault();
        part.selectedIndex = parseInt(key, 10);
        $("adjust-points").focus();
      }
    }
    else if (key === "a") {
      var all = $("confirm-all");
      if (all) { all.click(); }
    }
  });
})();
