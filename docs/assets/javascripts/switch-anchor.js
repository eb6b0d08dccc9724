// Switching language keeps the reader on the same section: the links of the language switcher
// get the current #anchor (both languages give a heading the same id). Done when a link is used,
// since Material updates the address with history.replaceState while the reader scrolls.
(function () {
  function withHash(link) {
    var url = new URL(link.href, location.href);
    url.hash = location.hash;
    link.href = url.href;
  }
  function update() {
    document.querySelectorAll(".md-select__link[hreflang]").forEach(withHash);
  }
  ["click", "auxclick", "contextmenu", "focusin", "mouseover"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var link = event.target.closest && event.target.closest(".md-select__link[hreflang]");
      if (link) withHash(link);
    }, true);
  });
  window.addEventListener("hashchange", update);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", update);
  else update();
})();
