/* What the reader's browser adds to the built pages (no network, no dependencies).
 *
 * 1. Copying a selection that holds formulas copies their TeX: each <math> carries it in its
 *    data-tex attribute (hooks/math.py). Inline formulas become \( … \),
 *    display formulas $$ … $$; the rest of the selection is copied as text.
 * 2. Chromium gives <msqrt> a trailing gap with STIX Two Math (up to 0.4 em after √x, so
 *    "O(d√(ln d) )"); the gap is measured and taken back with a negative margin, once the math
 *    font has loaded.
 */
(function () {
  "use strict";

  function texOf(math) {
    var tex = math.getAttribute("data-tex");
    if (tex === null) return null;
    return math.getAttribute("display") === "block" ? "$$" + tex + "$$" : "\\(" + tex + "\\)";
  }

  document.addEventListener("copy", function (event) {
    var selection = document.getSelection();
    if (!selection || selection.isCollapsed || !event.clipboardData) return;
    var range = selection.getRangeAt(0).cloneRange();
    var start = range.startContainer.parentElement && range.startContainer.parentElement.closest("math");
    var end = range.endContainer.parentElement && range.endContainer.parentElement.closest("math");
    if (range.startContainer.nodeType === 1 && range.startContainer.closest) start = start || range.startContainer.closest("math");
    if (range.endContainer.nodeType === 1 && range.endContainer.closest) end = end || range.endContainer.closest("math");
    if (start) range.setStartBefore(start);
    if (end) range.setEndAfter(end);
    var fragment = range.cloneContents();
    var maths = fragment.querySelectorAll("math");
    if (!maths.length) return;  // no formula: the browser copies as usual
    maths.forEach(function (math) {
      var tex = texOf(math);
      if (tex !== null) math.replaceWith(document.createTextNode(tex));
    });
    var box = document.createElement("div");
    box.style.cssText = "position:fixed;left:-10000px;top:0;white-space:pre-wrap";
    box.appendChild(fragment);
    document.body.appendChild(box);
    var text = box.innerText;
    box.remove();
    event.clipboardData.setData("text/plain", text.trim());
    event.preventDefault();
  });

  // Every radical is measured before any margin is set: one layout for the page, not one per radical.
  function closeRadicalGaps() {
    var roots = Array.prototype.slice.call(document.querySelectorAll("msqrt"));
    roots.forEach(function (root) { root.style.marginInlineEnd = ""; });
    var margins = roots.map(function (root) {
      var right = -Infinity;
      for (var child = root.firstElementChild; child; child = child.nextElementSibling) {
        right = Math.max(right, child.getBoundingClientRect().right);
      }
      var gap = root.getBoundingClientRect().right - right;
      var em = parseFloat(getComputedStyle(root).fontSize);
      return isFinite(gap) && gap > 0.08 * em ? -(gap - 0.05 * em) + "px" : "";
    });
    roots.forEach(function (root, i) { root.style.marginInlineEnd = margins[i]; });
  }

  if (document.fonts && document.fonts.ready) document.fonts.ready.then(closeRadicalGaps);
  else window.addEventListener("load", closeRadicalGaps);
})();
