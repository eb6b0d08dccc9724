/* Explorable figures (hooks/explorables.py puts them on a page; loaded only on such pages).
 *
 * A <figure data-explore> holds its static SVG (what prints, what a reader without JavaScript or
 * without the chart library sees) and, in a <script type="application/json">, the data files its
 * snippets wrote (docs/assets/data/*.json, checked on every reader machine like outputs). The
 * frames of all its files are joined; one labelled range input per parameter that takes more than
 * one value picks the frame. uPlot (vendored, docs/assets/vendor/) draws the curves on a canvas;
 * the figure also renders the frame as a table (what a screen reader reads) and a focusable chart:
 * Left/Right move from point to point and the values are announced, with the digits the block
 * prints (the file's y.format, a Python format spec). Every string comes from the file's labels
 * (the snippet's LABELS) or from extra.strings.explore of the page's language.
 */
(function () {
  "use strict";

  function fixedPy(v, n) {  // toFixed, but an exact tie rounds to even, as Python does
    var s = v.toFixed(n);
    if (!(Math.abs(v) < 1e21) || n > 20) return s;
    var exact = Math.abs(v).toFixed(100), cut = exact.indexOf(".") + 1 + n;
    if (!/^50*$/.test(exact.slice(cut))) return s;
    var down = exact.slice(0, n ? cut : cut - 1);
    return +down.charAt(down.length - 1) % 2 === 0 ? (v < 0 ? "-" : "") + down : s;
  }

  function expPy(v, n) {  // [mantissa digits "d.ddd", exponent] of Python's format(v, ".{n}e")
    var js = v.toExponential(n).split("e"), e = +js[1], decimals = n - e;
    if (v === 0 || decimals < 0 || decimals > 20 || !(Math.abs(v) < 1e21)) return [js[0], e];
    var d = fixedPy(Math.abs(v), decimals).replace(".", "").replace(/^0+/, "");
    if (d.length > n + 1) e += 1;  // cannot happen for a tie rounded down; kept for safety
    return [(v < 0 ? "-" : "") + d.charAt(0) + (n ? "." + d.slice(1, n + 1) : ""), e];
  }

  function pyFormat(v, spec) {  // Python's format(v, spec) for ".Nf", ".Ne", ".Ng"
    var m = /^\.(\d+)([efg])$/.exec(spec);
    if (!m) throw new Error("explore.js: unsupported format " + spec);
    var n = +m[1], kind = m[2];
    if (v === null || v === undefined || !isFinite(v)) return String(v);
    function exponent(e) { return "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e); }
    if (kind === "f") return fixedPy(v, n);
    if (kind === "e") { var me = expPy(v, n); return me[0] + exponent(me[1]); }
    var p = n || 1, mg = expPy(v, p - 1), e = mg[1];
    if (e >= -4 && e < p) {
      var s = fixedPy(v, Math.max(p - 1 - e, 0));
      return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
    }
    return mg[0].replace(/\.?0+$/, "") + exponent(e);
  }

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (_, k) { return values[k]; });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function join(files, figure) {  // the frames of every file; x, y and labels must agree
    var first = files[0];
    files.forEach(function (f) {
      ["x", "y", "labels"].forEach(function (k) {
        if (JSON.stringify(f[k]) !== JSON.stringify(first[k]))
          throw new Error("explore.js: " + figure.id + ": its data files differ in " + k);
      });
    });
    var frames = [].concat.apply([], files.map(function (f) { return f.frames; }));
    var keys = [], values = {};
    frames.forEach(function (fr) {
      Object.keys(fr.params).forEach(function (k) {
        if (!(k in values)) { keys.push(k); values[k] = []; }
        if (values[k].indexOf(fr.params[k]) < 0) values[k].push(fr.params[k]);
      });
    });
    return {x: first.x, y: first.y, labels: first.labels, frames: frames, keys: keys, values: values};
  }

  var seen = 0;

  var SUPERSCRIPT = {"-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹"};

  function decade(v) {  // a log axis' tick at a whole decade as the static figure writes it: 10⁻⁴, not 1e-04
    var e = String(Math.round(Math.log10(v)));
    return "10" + e.split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
  }

  function build(figure) {
    var lang = figure.getAttribute("data-lang");
    var strings = JSON.parse(figure.getAttribute("data-strings"));
    var files = JSON.parse(figure.querySelector("script.explore-data").textContent);
    var data = join(files, figure);
    var text = data.labels[lang];
    if (!text) throw new Error("explore.js: " + figure.id + ": no labels for " + lang);
    var id = "explore-" + (++seen);
    var state = {};
    data.keys.forEach(function (k) { state[k] = 0; });
    var start = JSON.parse(figure.getAttribute("data-start") || "{}");  // the frame the static SVG shows
    Object.keys(start).forEach(function (k) {
      if (k in state && data.values[k].indexOf(start[k]) >= 0) state[k] = data.values[k].indexOf(start[k]);
    });
    var seriesKeys = Object.keys(data.frames[0].series);
    // the language's punctuation (extra.strings.explore): "：" after a label in Chinese, and what a
    // readout shows before the reader points at the chart
    var colon = strings.colon || ": ", none = strings.none === undefined ? "–" : strings.none;

    function shown(key, value) {
      var names = text.values || {};
      return typeof value === "number" ? pyFormat(value, "." + 6 + "g") : (names[value] || String(value));
    }

    function frame() {
      return data.frames.find(function (fr) {
        return data.keys.every(function (k) { return fr.params[k] === data.values[k][state[k]]; });
      });
    }

    var box = el("div", {"class": "explore", id: id});
    var controls = el("div", {"class": "explore-controls"});
    data.keys.forEach(function (k) {
      if (data.values[k].length < 2) return;
      var row = el("div", {"class": "explore-control"});
      var input = el("input", {type: "range", id: id + "-" + k, min: 0, max: data.values[k].length - 1,
                               step: 1, value: state[k], "data-param": k});
      var label = el("label", {"for": input.id}, text.params[k]);
      var out = el("output", {"for": input.id, "aria-live": "polite"});
      function update() {
        state[k] = +input.value;
        out.textContent = shown(k, data.values[k][state[k]]);
        input.setAttribute("aria-valuetext", out.textContent);
        draw();
      }
      input.addEventListener("input", update);
      row.append(label, input, out);
      controls.appendChild(row);
      row.update = function () {
        out.textContent = shown(k, data.values[k][state[k]]);
        input.setAttribute("aria-valuetext", out.textContent);
      };
      row.update();
    });
    var chartBox = el("div", {"class": "explore-chart", tabindex: 0, role: "group",
                              "aria-roledescription": strings.chart,
                              "aria-label": text.y + " / " + text.x + ". " + strings.keys});
    var point = el("p", {"class": "explore-point", "aria-live": "polite"});
    var details = el("details", {"class": "explore-table"});
    details.appendChild(el("summary", {}, strings.table));
    var table = el("table");
    details.appendChild(table);
    var yLabel = el("p", {"class": "explore-ylabel", "aria-hidden": "true"}, text.y);  // the chart's aria-label says it
    box.append(controls, yLabel, chartBox, point, details);
    figure.insertBefore(box, figure.querySelector("figcaption"));

    var plot = null, cursor = null;

    var palette = (figure.getAttribute("data-colors") || "blue red orange green gray").split(/\s+/);
    var dashed = (figure.getAttribute("data-dashed") || "").split(/\s+/);

    function colors() {
      var css = getComputedStyle(figure);
      return {fg: css.getPropertyValue("--rn-explore-fg").trim(),
              grid: css.getPropertyValue("--rn-explore-grid").trim(),
              series: seriesKeys.map(function (_, i) {
                return css.getPropertyValue("--rn-explore-" + palette[i % palette.length]).trim();
              })};
    }

    function renderTable(fr) {  // what the chart was given, as text with the printed digits
      table.textContent = "";
      var head = el("tr");
      head.appendChild(el("th", {scope: "col"}, text.x));
      seriesKeys.forEach(function (s) { head.appendChild(el("th", {scope: "col"}, text.series[s])); });
      var thead = el("thead"), tbody = el("tbody");
      thead.appendChild(head);
      data.x.forEach(function (x, i) {
        var tr = el("tr");
        tr.appendChild(el("th", {scope: "row"}, String(x)));
        seriesKeys.forEach(function (s) { tr.appendChild(el("td", {}, pyFormat(fr.series[s][i], data.y.format))); });
        tbody.appendChild(tr);
      });
      table.append(thead, tbody);
    }

    function announce(i) {
      var fr = frame();
      point.textContent = text.x + " " + data.x[i] + colon + seriesKeys.map(function (s) {
        return text.series[s] + " " + pyFormat(fr.series[s][i], data.y.format);
      }).join(" · ");
    }

    var all = [].concat.apply([], data.frames.map(function (fr) {  // one y range for every frame
      return [].concat.apply([], seriesKeys.map(function (k) { return fr.series[k]; }));
    })).filter(function (v) { return v !== null && (!data.y.log || v > 0); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var yRange = data.y.log
      ? [Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi)))]
      : [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)];

    function decades() {  // a log axis: grid and labels at whole decades, at most about seven
      var e0 = Math.round(Math.log10(yRange[0])), e1 = Math.round(Math.log10(yRange[1]));
      var every = Math.max(1, Math.ceil((e1 - e0) / 6)), out = [];
      for (var e = e0; e <= e1; e += every) out.push(Math.pow(10, e));
      return out;
    }

    function options(width) {
      var c = colors();
      var axis = {stroke: c.fg, grid: {stroke: c.grid, width: 1}, ticks: {stroke: c.grid, width: 1}};
      return {
        width: width, height: Math.max(220, Math.min(340, Math.round(width * 0.6))),
        scales: {x: {time: false}, y: Object.assign({range: function () { return yRange.slice(); }},
                                                   data.y.log ? {distr: 3} : {})},
        legend: {live: true},
        cursor: {drag: {x: false, y: false}},
        axes: [Object.assign({label: text.x}, axis),
               Object.assign({size: 56, space: 18, splits: data.y.log ? decades : undefined,
                              values: function (u, splits) {
                                return splits.map(function (v) { return v === null ? "" : data.y.log ? decade(v) : pyFormat(v, ".3g"); });
                              }}, axis)],
        series: [{label: text.x, value: function (u, v) { return v === null ? none : String(v); }}].concat(
          seriesKeys.map(function (s, i) {
            return {label: text.series[s], stroke: c.series[i], width: 2, points: {show: false},
                    dash: dashed.indexOf(s) >= 0 ? [6, 4] : undefined,
                    value: function (u, v) { return v === null ? none : pyFormat(v, data.y.format); }};
          })),
      };
    }

    function draw() {
      var fr = frame();
      controls.querySelectorAll(".explore-control").forEach(function (row) { row.update(); });
      var rows = [data.x].concat(seriesKeys.map(function (s) { return fr.series[s]; }));
      if (plot) plot.setData(rows); else {
        plot = new uPlot(options(chartBox.clientWidth || figure.clientWidth), rows, chartBox);
      }
      renderTable(fr);
      figure.setAttribute("data-frame", JSON.stringify(fr.params));
      if (cursor !== null) announce(cursor);
    }

    function rebuild() {  // a new width or colour scheme: a new chart, same frame
      if (plot) { plot.destroy(); plot = null; }
      draw();
    }

    chartBox.addEventListener("keydown", function (event) {
      var n = data.x.length, here = cursor === null ? -1 : cursor;
      var next = {ArrowRight: here + 1, ArrowLeft: cursor === null ? n - 1 : here - 1, Home: 0, End: n - 1}[event.key];
      if (next === undefined || !plot) return;
      event.preventDefault();
      cursor = Math.max(0, Math.min(n - 1, next));
      plot.setCursor({left: plot.valToPos(data.x[cursor], "x"), top: plot.valToPos(frame().series[seriesKeys[0]][cursor], "y")});
      announce(cursor);
    });

    figure.classList.add("explore-live");
    draw();
    var width = chartBox.clientWidth;
    window.addEventListener("resize", function () {
      if (chartBox.clientWidth !== width) { width = chartBox.clientWidth; rebuild(); }
    });
    new MutationObserver(rebuild).observe(document.body, {attributes: true, attributeFilter: ["data-md-color-scheme"]});
  }

  function start() {
    if (typeof window.uPlot !== "function") return;  // no chart library: the static SVG stays
    document.querySelectorAll("figure[data-explore]").forEach(build);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
