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
 *
 * A file may also compute (a "live" figure): its "controls" make a parameter a continuous slider
 * (min, max, step, the tick labels), and its "live" names a model below, MODELS, that computes series
 * in the browser from the file's "inputs" at any position of the sliders. The file's frames are then
 * the block's own values at the positions it sampled: there the computed series must equal them
 * (tests/test_explorables.py), and a series the model does not compute is drawn from the frame at
 * exactly that position (nothing in between), or from the file's "fixed" series. One readout (under
 * the chart) shows the point the pointer or the keyboard is on; a caption's
 * <span data-explore-value="param"> shows the position of that parameter's slider.
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

  // Models of live figures: (inputs, params, x) -> {series key: values at each x}. Each computes what
  // the block that writes its file computes; the block's frames pin it at the sampled positions.
  var MODELS = {
    // residual-scaling: the expected input-gradient gain of L blocks x + alpha F(x), (1 + c alpha^2)^(L/2)
    "residual-gain-theory": function (inp, p, x) {
      return {theory: x.map(function (L) { return Math.pow(1 + inp.c * p.alpha * p.alpha, L / 2); })};
    },
    // residual-frontier: the gain (largest absolute row or column sum) of the product of the first l
    // mixing matrices: I + sigma G (HC) and Sinkhorn-Knopp on exp(scale z), rows then columns (mHC)
    "mixing-composite-gain": function (inp, p, x) {
      var n = inp.n, nn = n * n, depth = inp.noise.length / nn;
      function mats(make) { var out = []; for (var l = 0; l < depth; l++) out.push(make(l)); return out; }
      function gains(ms) {
        var prod = [], out = [1], i, j, k;
        for (i = 0; i < nn; i++) prod.push(i % (n + 1) === 0 ? 1 : 0);
        ms.forEach(function (m) {
          var next = [];
          for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
            var acc = 0;
            for (k = 0; k < n; k++) acc += m[i * n + k] * prod[k * n + j];
            next.push(acc);
          }
          prod = next;
          var best = 0;
          for (i = 0; i < n; i++) {
            var row = 0, col = 0;
            for (j = 0; j < n; j++) { row += Math.abs(prod[i * n + j]); col += Math.abs(prod[j * n + i]); }
            best = Math.max(best, row, col);
          }
          out.push(best);
        });
        return out.slice(0, x.length);
      }
      var hc = mats(function (l) {
        return inp.noise.slice(l * nn, (l + 1) * nn).map(function (q, i) {
          return (i % (n + 1) === 0 ? 1 : 0) + inp.sigma * (q / inp.grid);
        });
      });
      var mhc = mats(function (l) {
        var m = inp.z.slice(l * nn, (l + 1) * nn).map(function (q) { return Math.exp(p.scale * (q / inp.grid)); });
        for (var t = 0; t < p.iters; t++) {
          var i, j, sum;
          for (i = 0; i < n; i++) {
            for (sum = 0, j = 0; j < n; j++) sum += m[i * n + j];
            for (j = 0; j < n; j++) m[i * n + j] /= sum;
          }
          for (j = 0; j < n; j++) {
            for (sum = 0, i = 0; i < n; i++) sum += m[i * n + j];
            for (i = 0; i < n; i++) m[i * n + j] /= sum;
          }
        }
        return m;
      });
      return {hc: gains(hc), sinkhorn: gains(mhc)};
    },
    // depth-as-sequence: N Pre-LN sublayers relu(norm(h) W1) W2; the stream after l sublayers is
    // sum_i gamma^(l - i) s_i over the embedding s_0 and the outputs s_i; loss = sum(r * norm(h_N)).
    // Forward, then the backward pass by hand: the RMS of the stream and of the gradient on each source.
    "depth-weights": function (inp, p, x) {
      var d = inp.d, T = inp.tokens, N = inp.N, H = 4 * d, gamma = p.gamma, td = T * d;
      var W1 = inp.W1.map(function (q) { return q / inp.grid * inp.scale1; });
      var W2 = inp.W2.map(function (q) { return q / inp.grid * inp.scale2; });
      function rmsOf(a) { var s = 0; for (var j = 0; j < a.length; j++) s += a[j] * a[j]; return Math.sqrt(s / a.length); }
      function norm(h) {  // each token divided by its RMS (F.rms_norm, eps 0)
        var out = new Float64Array(td);
        for (var t = 0; t < T; t++) {
          var s = 0, j;
          for (j = 0; j < d; j++) s += h[t * d + j] * h[t * d + j];
          var inv = 1 / Math.sqrt(s / d);
          for (j = 0; j < d; j++) out[t * d + j] = h[t * d + j] * inv;
        }
        return out;
      }
      function normBack(h, y, dy) {  // dh = (dy - y mean(dy y)) / rms(h), per token
        var out = new Float64Array(td);
        for (var t = 0; t < T; t++) {
          var s = 0, m = 0, j;
          for (j = 0; j < d; j++) { s += h[t * d + j] * h[t * d + j]; m += dy[t * d + j] * y[t * d + j]; }
          var rms = Math.sqrt(s / d);
          m /= d;
          for (j = 0; j < d; j++) out[t * d + j] = (dy[t * d + j] - y[t * d + j] * m) / rms;
        }
        return out;
      }
      var src = [Float64Array.from(inp.x, function (q) { return q / inp.grid; })];
      var stream = [], normed = [], pre = [];
      for (var l = 0; l <= N; l++) {
        var h = new Float64Array(td);
        for (var i = 0; i <= l; i++) {
          var w = Math.pow(gamma, l - i), s = src[i];
          for (var k = 0; k < td; k++) h[k] += w * s[k];
        }
        stream.push(h);
        normed.push(norm(h));
        if (l === N) break;
        var u = normed[l], a = new Float64Array(T * H), v = new Float64Array(td), t, j, c;
        for (t = 0; t < T; t++) for (j = 0; j < H; j++) {
          var acc = 0;
          for (c = 0; c < d; c++) acc += u[t * d + c] * W1[(l * d + c) * H + j];
          a[t * H + j] = acc;
        }
        for (t = 0; t < T; t++) for (j = 0; j < d; j++) {
          var acc2 = 0;
          for (c = 0; c < H; c++) acc2 += Math.max(a[t * H + c], 0) * W2[(l * H + c) * d + j];
          v[t * d + j] = acc2;
        }
        pre.push(a);
        src.push(v);
      }
      var grad = src.map(function () { return new Float64Array(td); });
      for (l = N; l >= 0; l--) {
        var dy;
        if (l === N) dy = Float64Array.from(inp.r, function (q) { return q / inp.grid; });
        else {  // back through sublayer l: from the gradient on its output, source l + 1
          var dv = grad[l + 1], aa = pre[l], dz = new Float64Array(T * H);
          dy = new Float64Array(td);
          for (t = 0; t < T; t++) for (c = 0; c < H; c++) {
            if (!(aa[t * H + c] > 0)) continue;
            var acc3 = 0;
            for (j = 0; j < d; j++) acc3 += dv[t * d + j] * W2[(l * H + c) * d + j];
            dz[t * H + c] = acc3;
          }
          for (t = 0; t < T; t++) for (j = 0; j < d; j++) {
            var acc4 = 0;
            for (c = 0; c < H; c++) acc4 += dz[t * H + c] * W1[(l * d + j) * H + c];
            dy[t * d + j] = acc4;
          }
        }
        var dh = normBack(stream[l], normed[l], dy);
        for (i = 0; i <= l; i++) {
          var wi = Math.pow(gamma, l - i), gi = grad[i];
          for (k = 0; k < td; k++) gi[k] += wi * dh[k];
        }
      }
      return {stream: stream.map(rmsOf).slice(0, x.length), grad: grad.map(rmsOf).slice(0, x.length)};
    },
  };

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
    var controls = first.controls || {};
    Object.keys(controls).forEach(function (k) {
      if (!(k in values)) { keys.push(k); values[k] = []; }
    });
    if (first.live && !MODELS[first.live])
      throw new Error("explore.js: " + figure.id + ": no model " + first.live);
    return {x: first.x, y: first.y, labels: first.labels, frames: frames, keys: keys, values: values,
            controls: controls, live: first.live, inputs: first.inputs, fixed: first.fixed || {}};
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
    var state = {};  // a continuous control holds its value, a discrete one the index of its value
    data.keys.forEach(function (k) {
      var c = data.controls[k];
      state[k] = c ? (c.value !== undefined ? c.value : c.min) : 0;
    });
    var start = JSON.parse(figure.getAttribute("data-start") || "{}");  // the frame the static SVG shows
    Object.keys(start).forEach(function (k) {
      if (!(k in state)) return;
      if (data.controls[k]) state[k] = start[k];
      else if (data.values[k].indexOf(start[k]) >= 0) state[k] = data.values[k].indexOf(start[k]);
    });
    var seriesKeys = data.live ? Object.keys(text.series) : Object.keys(data.frames[0].series);
    // the language's punctuation (extra.strings.explore): "：" after a label in Chinese, and what a
    // readout shows before the reader points at the chart
    var colon = strings.colon || ": ", none = strings.none === undefined ? "–" : strings.none;

    function value(k) { return data.controls[k] ? state[k] : data.values[k][state[k]]; }

    function params() {
      var out = {};
      data.keys.forEach(function (k) { out[k] = value(k); });
      return out;
    }

    function shown(key, v) {
      var names = text.values || {};
      return typeof v === "number" ? pyFormat(v, "." + 6 + "g") : (names[v] || String(v));
    }

    function frame() {  // the block's frame at exactly this position, if it sampled it
      return data.frames.find(function (fr) {
        return data.keys.every(function (k) { return fr.params[k] === value(k); });
      });
    }

    function series() {  // what is drawn at this position: computed (live), or the frame's
      var fr = frame();
      if (!data.live) return fr.series;
      var out = MODELS[data.live](data.inputs, params(), data.x);
      seriesKeys.forEach(function (s) {
        if (s in out) return;
        out[s] = data.fixed[s] || (fr && fr.series[s]) || data.x.map(function () { return null; });
      });
      return out;
    }

    var box = el("div", {"class": "explore", id: id});
    var controls = el("div", {"class": "explore-controls"});
    data.keys.forEach(function (k) {
      var c = data.controls[k];
      if (!c && data.values[k].length < 2) return;
      var row = el("div", {"class": "explore-control"});
      var input = el("input", c ? {type: "range", id: id + "-" + k, min: c.min, max: c.max, step: c.step,
                                   value: state[k], "data-param": k, list: id + "-" + k + "-ticks"}
                                : {type: "range", id: id + "-" + k, min: 0, max: data.values[k].length - 1,
                                   step: 1, value: state[k], "data-param": k, list: id + "-" + k + "-ticks"});
      var label = el("label", {"for": input.id}, text.params[k]);
      var out = el("output", {"for": input.id, "aria-live": "polite"});
      // tick labels under the slider: a continuous control's "ticks", or every value of a discrete one;
      // tick marks (a datalist) where the block ran: its frames' values
      var ticks = c ? c.ticks || [c.min, c.max] : data.values[k];
      var list = el("datalist", {id: input.id + "-ticks"});
      data.values[k].forEach(function (v, i) { list.appendChild(el("option", {value: c ? v : i})); });
      var scale = el("div", {"class": "explore-ticks", "aria-hidden": "true"});
      ticks.forEach(function (t, i) {
        var at = c ? (t - c.min) / (c.max - c.min) : (ticks.length > 1 ? i / (ticks.length - 1) : 0);
        var tick = el("span", {style: "left:" + (100 * at) + "%"}, shown(k, t));
        if (at <= 0) tick.classList.add("explore-tick-first");
        if (at >= 1) tick.classList.add("explore-tick-last");
        scale.appendChild(tick);
      });
      var slider = el("div", {"class": "explore-slider"});
      slider.append(input, scale, list);
      function update() {
        state[k] = c ? parseFloat(input.value) : +input.value;
        row.update();
        draw();
      }
      input.addEventListener("input", update);
      row.append(label, slider, out);
      controls.appendChild(row);
      row.update = function () {
        out.textContent = shown(k, value(k));
        input.setAttribute("aria-valuetext", out.textContent);
        figure.querySelectorAll('figcaption [data-explore-value="' + k + '"]').forEach(function (span) {
          span.textContent = out.textContent;
        });
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

    var plot = null, cursor = null, current = null;

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

    function formatted(v) { return v === null || v === undefined ? none : pyFormat(v, data.y.format); }

    function renderTable(ser) {  // what the chart was given, as text with the printed digits
      table.textContent = "";
      var head = el("tr");
      head.appendChild(el("th", {scope: "col"}, text.x));
      seriesKeys.forEach(function (s) { head.appendChild(el("th", {scope: "col"}, text.series[s])); });
      var thead = el("thead"), tbody = el("tbody");
      thead.appendChild(head);
      data.x.forEach(function (x, i) {
        var tr = el("tr");
        tr.appendChild(el("th", {scope: "row"}, String(x)));
        seriesKeys.forEach(function (s) { tr.appendChild(el("td", {}, formatted(ser[s][i]))); });
        tbody.appendChild(tr);
      });
      table.append(thead, tbody);
    }

    function announce(i) {  // the one readout: the point the keyboard or the pointer is on (else the last)
      point.textContent = text.x + " " + data.x[i] + colon + seriesKeys.map(function (s) {
        return text.series[s] + " " + formatted(current[s][i]);
      }).join(" · ");
    }

    function finite(values) {
      return values.filter(function (v) { return v !== null && isFinite(v) && (!data.y.log || v > 0); });
    }

    function range(values) {
      var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
      if (data.y.log) {
        lo = Math.pow(10, Math.floor(Math.log10(lo)));
        hi = Math.pow(10, Math.ceil(Math.log10(hi)));
        return [lo, hi > lo ? hi : lo * 10];
      }
      return hi > lo ? [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)] : [lo - 1, hi + 1];
    }

    // the y range: the file's fixed one ("range"), or one for every frame, or (y.fit "shown") the
    // curves at this position
    var yRange = data.y.range ? data.y.range.slice() : data.live ? null : range(finite([].concat.apply([], data.frames.map(function (fr) {
      return [].concat.apply([], seriesKeys.map(function (k) { return fr.series[k]; }));
    }))));

    function decadesShown() {  // the whole decades of the y range
      return [Math.floor(Math.log10(yRange[0]) + 1e-9), Math.ceil(Math.log10(yRange[1]) - 1e-9)];
    }

    function ticksLog() {  // a log axis: grid and labels at whole decades (and at 2 and 5 if it spans few)
      var e0 = decadesShown()[0], e1 = decadesShown()[1];
      var every = Math.max(1, Math.ceil((e1 - e0) / 6)), out = [];
      for (var e = e0; e <= e1; e += every) {
        (e1 - e0 <= 2 ? [1, 2, 5] : [1]).forEach(function (m) {
          var v = m * Math.pow(10, e);
          if (v >= yRange[0] * (1 - 1e-9) && v <= yRange[1] * (1 + 1e-9)) out.push(v);
        });
      }
      return out;
    }

    function tickLabel(v, few) {  // as the static figure writes it: 10⁻⁴ at whole decades, 0.5 or 20 on a short axis; never 1e-04
      if (!data.y.log) return pyFormat(v, ".3g");
      var e = Math.floor(Math.log10(v) + 1e-9), m = Math.round(v / Math.pow(10, e));
      if (!few) return decade(v);
      if (e < -2 || e > 3) return (m === 1 ? "" : m + "×") + decade(Math.pow(10, e));
      return pyFormat(v, ".3g");
    }

    function options(width) {
      var c = colors();
      var axis = {stroke: c.fg, grid: {stroke: c.grid, width: 1}, ticks: {stroke: c.grid, width: 1}};
      return {
        width: width, height: Math.max(220, Math.min(340, Math.round(width * 0.6))),
        scales: {x: {time: false}, y: Object.assign({range: function () { return yRange.slice(); }},
                                                   data.y.log ? {distr: 3} : {})},
        legend: {live: false},  // one readout: the line under the chart, not the legend too
        cursor: {drag: {x: false, y: false}},
        hooks: {setCursor: [function (u) {
          if (u.cursor.idx !== null && u.cursor.idx !== undefined) { cursor = u.cursor.idx; announce(cursor); }
        }]},
        axes: [Object.assign({label: text.x}, axis),
               Object.assign({size: 64, space: 18, splits: data.y.log ? ticksLog : undefined,
                              values: function (u, splits) {
                                var few = decadesShown()[1] - decadesShown()[0] <= 2;  // 1, 2, 5, 10, … (as ticksLog)
                                return splits.map(function (v) { return v === null ? "" : tickLabel(v, few); });
                              }}, axis)],
        series: [{label: text.x}].concat(
          seriesKeys.map(function (s, i) {
            return {label: text.series[s], stroke: c.series[i], width: 2, points: {show: false},
                    dash: dashed.indexOf(s) >= 0 ? [6, 4] : undefined};
          })),
      };
    }

    function draw() {
      current = series();
      if (data.live && !data.y.range) {
        yRange = range(finite([].concat.apply([], seriesKeys.map(function (s) { return current[s]; }))));
      }
      var rows = [data.x].concat(seriesKeys.map(function (s) { return current[s]; }));
      if (plot) plot.setData(rows); else {
        plot = new uPlot(options(chartBox.clientWidth || figure.clientWidth), rows, chartBox);
      }
      renderTable(current);
      figure.setAttribute("data-frame", JSON.stringify(params()));
      figure.exploreSeries = current;  // what the chart draws, at full precision (the tests read it)
      announce(cursor === null ? data.x.length - 1 : cursor);
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
      var y = current[seriesKeys[0]][cursor];
      plot.setCursor({left: plot.valToPos(data.x[cursor], "x"), top: y === null ? 0 : plot.valToPos(y, "y")});
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
