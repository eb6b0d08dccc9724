/* Search loads when the reader starts to search (hooks/search_lazy.py; no network, no dependencies).
 *
 * Loaded before Material's bundle, which (edited at build time) asks residualNotesSearch for:
 * - index(fetchIndex): a promise of the search index. fetchIndex, Material's own fetch, runs once,
 *   when the reader starts to search: focus in the search form (a click or tap on the field, the
 *   search icon on phones, the "/", "s" and "f" shortcuts all focus it), the search dialog
 *   opening, or a page opened with Material's ?q= (search link) or ?h= (a result's highlight).
 * - worker(url): Material's search worker, created when the first message (the index) is posted.
 */
(function () {
  "use strict";

  var started = false;
  var waiting = [];

  function start() {
    if (started) return;
    started = true;
    waiting.splice(0).forEach(function (run) { run(); });
  }

  function whenSearching(run) {
    if (started) run();
    else waiting.push(run);
  }

  var toggle = document.querySelector("[data-md-toggle=search]");
  var params = new URL(location.href).searchParams;
  if (params.has("q") || params.has("h") || (toggle && toggle.checked)) start();
  document.addEventListener("focusin", function (event) {
    if (event.target.closest && event.target.closest("form[name=search]")) start();
  }, true);
  document.addEventListener("change", function (event) {
    if (event.target === toggle && toggle.checked) start();
  }, true);

  function index(fetchIndex) {
    return new Promise(function (resolve, reject) {
      whenSearching(function () {
        fetchIndex().subscribe({ next: resolve, error: reject });
      });
    });
  }

  class LazyWorker extends EventTarget {
    constructor(url) {
      super();
      this.url = url;
      this.worker = null;
    }

    postMessage(message) {
      if (!this.worker) {
        this.worker = new Worker(this.url);
        this.worker.addEventListener("message", (event) => {
          this.dispatchEvent(new MessageEvent("message", { data: event.data }));
        });
      }
      this.worker.postMessage(message);
    }
  }

  window.residualNotesSearch = {
    index: index,
    worker: function (url) { return new LazyWorker(url); },
  };
})();
