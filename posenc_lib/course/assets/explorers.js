/* posenc_lib.course explorers: the formulas of posenc_lib in float64 JavaScript, the controls
   and the charts (uPlot). This is the source: `make explorers` writes one minified script per
   kind, explorers.<kind>.min.js, holding the code that kind uses (KINDS below cut to it), and
   each explorer's output inlines its kind's script (posenc_lib/course/explorers.py);
   tests/book/browser/test_explorer_parity.py compares every value an explorer shows
   (element.__explorer.values()) with posenc_lib. Several scripts on one page share the
   registry window.PosencExplorers, each adding its kinds. */
(function () {
  "use strict";
  var registry = window.PosencExplorers;
  if (!registry) {
    registry = window.PosencExplorers = {
      kinds: {},
      mount: function (root) {
        if (!root || root.__explorer) return;
        if (typeof uPlot === "undefined") return; // the static text stays
        var kind = registry.kinds[root.getAttribute("data-kind")];
        if (kind) kind(root, JSON.parse(root.getAttribute("data-config")));
      },
    };
  }

  // ---- formulas (float64), each named after the posenc_lib function it follows ----------
  var EULER_GAMMA = 0.5772156649015329;
  var SERIES_LIMIT = 4.0;
  var CIN_COEFFS = (function () {
    var out = [], fact = 1;
    for (var k = 1; k <= 20; k++) {
      fact *= (2 * k - 1) * (2 * k); // (2k)!
      out.push((k % 2 ? 1 : -1) / (2 * k * fact));
    }
    return out;
  })();

  // posenc_lib.frequencies: theta_i = b^(-2i/d) = exp(-(2i/d) ln b)
  function frequencies(d, b) {
    var out = new Float64Array(d / 2), lb = Math.log(b);
    for (var i = 0; i < d / 2; i++) out[i] = Math.exp(-((2 * i) / d) * lb);
    return out;
  }
  // posenc_lib.layouts.pair_columns: the columns of sin and cos of pair i
  function pairColumns(d, layout, i) {
    var h = d / 2;
    if (layout === "interleaved") return [2 * i, 2 * i + 1];
    if (layout === "interleaved_cos_first") return [2 * i + 1, 2 * i];
    if (layout === "concatenated") return [i, h + i];
    return [h + i, i]; // concatenated_cos_first
  }
  // posenc_lib.sinusoidal(length, d, base=b, layout=layout): flat row-major table. Rows are
  // stepped by angle addition (posenc_lib.angle_addition), (s, c) <- (s c1 + c s1, c c1 - s s1),
  // from sin and cos computed directly at every 8th row: at most 7 steps, error below 1e-15.
  function table(length, d, b, layout) {
    var th = frequencies(d, b), out = new Float64Array(length * d);
    for (var i = 0; i < d / 2; i++) {
      var col = pairColumns(d, layout, i), s1 = Math.sin(th[i]), c1 = Math.cos(th[i]), s, c;
      for (var m = 0; m < length; m++) {
        if (m % 8 === 0) { s = Math.sin(m * th[i]); c = Math.cos(m * th[i]); }
        else { var t = s * c1 + c * s1; c = c * c1 - s * s1; s = t; }
        out[m * d + col[0]] = s;
        out[m * d + col[1]] = c;
      }
    }
    return out;
  }
  // posenc_lib.kernel: (2/d) sum_i cos(delta theta_i)
  function kernelSum(deltas, d, b) {
    var th = frequencies(d, b), n = th.length, out = new Float64Array(deltas.length);
    for (var k = 0; k < deltas.length; k++) {
      var s = 0, x = deltas[k];
      for (var i = 0; i < n; i++) s += Math.cos(x * th[i]);
      out[k] = s / n;
    }
    return out;
  }
  // posenc_lib.special: Cin by its power series (x <= 4), Ci by the continued fraction of E1
  function cinSeries(x) {
    var z = x * x, s = CIN_COEFFS[19];
    for (var k = 18; k >= 0; k--) s = s * z + CIN_COEFFS[k];
    return s * z;
  }
  function ciFraction(x) {
    // modified Lentz for E1(ix); complex numbers as [re, im]
    function div(a, b) {
      var den = b[0] * b[0] + b[1] * b[1];
      return [(a[0] * b[0] + a[1] * b[1]) / den, (a[1] * b[0] - a[0] * b[1]) / den];
    }
    function mul(a, b) { return [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]; }
    var bb = [1, x], c = [1e300, 0], dd = div([1, 0], bb), h = dd.slice();
    for (var n = 1; n < 1000; n++) {
      var a = -n * n;
      bb = [bb[0] + 2, bb[1]];
      dd = div([1, 0], [a * dd[0] + bb[0], a * dd[1] + bb[1]]);
      var q = div([a, 0], c);
      c = [bb[0] + q[0], bb[1] + q[1]];
      var step = mul(c, dd);
      h = mul(h, step);
      if (Math.hypot(step[0] - 1, step[1]) < 1e-15) break;
    }
    return -(Math.cos(x) * h[0] + Math.sin(x) * h[1]);
  }
  function cin(x) {
    x = Math.abs(x);
    return x <= SERIES_LIMIT ? cinSeries(x) : EULER_GAMMA + Math.log(x) - ciFraction(x);
  }
  function ci(x) {
    return x <= SERIES_LIMIT ? EULER_GAMMA + Math.log(x) - cinSeries(x) : ciFraction(x);
  }
  // posenc_lib.kernel_integral: (Ci(|x|) - Ci(|x|/b)) / ln b, by the same three branches
  function kernelIntegral(delta, b) {
    var x = Math.abs(delta), y = x / b, lb = Math.log(b);
    if (x <= SERIES_LIMIT) return 1 - (cinSeries(x) - cinSeries(y)) / lb;
    if (y <= SERIES_LIMIT) return 1 + (ci(x) - EULER_GAMMA - Math.log(x) + cinSeries(y)) / lb;
    return (ci(x) - ci(y)) / lb;
  }
  // posenc_lib.decay.kernel_taylor, kernel_log, kernel_oscillatory
  function kernelTaylor(delta, b) {
    return 1 - (delta * delta * (1 - Math.pow(b, -2))) / (4 * Math.log(b));
  }
  function kernelLog(delta, b) {
    return 1 - (EULER_GAMMA + Math.log(Math.abs(delta))) / Math.log(b);
  }
  function kernelOscillatory(delta, b) {
    var x = Math.abs(delta);
    return (Math.sin(x) - b * Math.sin(x / b)) / (x * Math.log(b));
  }
  // chapter 5, (ch5-aliasing): the offset where the sum leaves the integral
  function deltaStar(d, b) { return (Math.PI * d) / Math.log(b); }
  // chapter 8: relative score s(D)/s(0) for q = k = 1 (= kappa) and RoFormer's quantity
  // (2/d) sum_{j=1}^{d/2} |S_j(D)|, S_j = sum_{i<j} exp(i D theta_i), one pass over the pairs
  function rotaryCurves(deltas, d, b) {
    var th = frequencies(d, b), n = th.length;
    var score = new Float64Array(deltas.length), level = new Float64Array(deltas.length);
    for (var k = 0; k < deltas.length; k++) {
      var x = deltas[k], re = 0, im = 0, sumAbs = 0, sumCos = 0;
      for (var i = 0; i < n; i++) {
        var c = Math.cos(x * th[i]), s = Math.sin(x * th[i]);
        re += c; im += s; sumCos += c;
        sumAbs += Math.sqrt(re * re + im * im);
      }
      score[k] = sumCos / n;
      level[k] = sumAbs / n;
    }
    return { score: score, level: level };
  }
  // posenc_lib.rope_scaling.RopeScaling(method, ...).frequencies(d, base=b, seq_len=target)
  function ropeFrequencies(method, d, b, factor, trained, target) {
    var n = d / 2, lb = Math.log(b), th = frequencies(d, b), i;
    var out = new Float64Array(n), attention = 1;
    if (method === "default") out.set(th);
    else if (method === "linear") for (i = 0; i < n; i++) out[i] = th[i] / factor;
    else if (method === "dynamic") {
      var length = Math.max(target, trained);
      var growth = (Math.log((factor * length) / trained - (factor - 1)) * d) / (d - 2);
      for (i = 0; i < n; i++) out[i] = Math.exp(-((2 * i) / d) * (lb + growth));
    } else if (method === "yarn") {
      var corr = function (rot) {
        return (d * Math.log(trained / (rot * 2 * Math.PI))) / (2 * lb);
      };
      var low = Math.floor(corr(32)), high = Math.ceil(corr(1));
      low = Math.max(low, 0); high = Math.min(high, d - 1);
      if (low === high) high += 0.001;
      for (i = 0; i < n; i++) {
        var ramp = Math.min(Math.max((i - low) / (high - low), 0), 1), keep = 1 - ramp;
        out[i] = (th[i] / factor) * (1 - keep) + th[i] * keep;
      }
      attention = factor <= 1 ? 1 : 0.1 * Math.log(factor) + 1;
    } else if (method === "llama3") {
      var lo = 1, hi = 4;
      for (i = 0; i < n; i++) {
        var wl = (2 * Math.PI) / th[i];
        var scaled = wl > trained / lo ? th[i] / factor : th[i];
        var smooth = (trained / wl - lo) / (hi - lo);
        var blended = ((1 - smooth) * scaled) / factor + smooth * scaled;
        out[i] = wl >= trained / hi && wl <= trained / lo ? blended : scaled;
      }
    } else throw new Error("unknown method " + method);
    return { theta: th, scaled: out, attention: attention };
  }
  function geomspace(lo, hi, n) {
    var out = new Float64Array(n), a = Math.log(lo), s = (Math.log(hi) - a) / (n - 1);
    for (var k = 0; k < n; k++) out[k] = Math.exp(a + k * s);
    out[0] = lo; out[n - 1] = hi;
    return out;
  }
  function integerOffsets(hi, n) { // distinct integers 1..hi, about geometric
    var g = geomspace(1, hi, n), out = [], last = 0;
    for (var k = 0; k < n; k++) {
      var v = Math.round(g[k]);
      if (v > last) { out.push(v); last = v; }
    }
    return Float64Array.from(out);
  }

  // ---- formatting, controls, charts --------------------------------------------------------
  function fmt(x, digits) {
    if (x === 0) return "0";
    var a = Math.abs(x);
    if (a >= 1e5 || a < 1e-3) {
      var e = Math.floor(Math.log10(a)), m = x / Math.pow(10, e);
      return m.toFixed(digits === undefined ? 2 : digits - 1) + "e" + e;
    }
    return Number(x.toPrecision(digits || 4)).toString();
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var uid = 0;
  // A labelled control: a range over a list of values, or a select; the value shown beside it.
  function control(box, spec, value, onChange) {
    var id = box.closest(".pe-x").id + "-" + spec.name + "-" + uid++;
    var row = el("div", "pe-x-control");
    var label = el("label", null, spec.label);
    label.htmlFor = id;
    var input, out = el("output", "pe-x-value");
    out.htmlFor = id;
    if (spec.options) {
      input = el("select");
      spec.options.forEach(function (o) {
        var opt = el("option", null, o);
        opt.value = o;
        input.appendChild(opt);
      });
      input.value = value;
    } else {
      input = el("input");
      input.type = "range";
      input.min = 0;
      input.max = spec.values.length - 1;
      input.step = 1;
      input.value = Math.max(0, spec.values.indexOf(value));
    }
    input.id = id;
    input.name = spec.name;
    if (!spec.options) {
      // A finger put on the slider sets its value at once; if the finger then moves up or
      // down, the browser scrolls the page (touch-action: pan-y) and cancels the pointer:
      // the swipe was a scroll, so the value goes back to what it was before the touch.
      var before = null;
      input.addEventListener("pointerdown", function (e) {
        before = e.pointerType === "mouse" ? null : input.value;
      });
      input.addEventListener("pointerup", function () { before = null; });
      input.addEventListener("pointercancel", function () {
        if (before !== null && before !== input.value) {
          input.value = before;
          input.dispatchEvent(new Event("input"));
        }
        before = null;
      });
    }
    var read = function () {
      return spec.options ? input.value : spec.values[Number(input.value)];
    };
    var show = function () {
      var v = read();
      out.textContent = spec.show ? spec.show(v) : String(v);
      input.setAttribute("aria-valuetext", out.textContent);
    };
    input.addEventListener(spec.options ? "change" : "input", function () {
      show();
      onChange(spec.name, read());
    });
    show();
    row.appendChild(label);
    if (spec.options) row.appendChild(input);
    else { // − and + buttons beside the slider: one step each, precise under a finger
      var step = function (by, text, name) {
        var button = el("button", "pe-x-step", text);
        button.type = "button";
        button.setAttribute("aria-label", name + " " + spec.label);
        button.addEventListener("click", function () {
          var k = Number(input.value) + by;
          if (k < 0 || k > spec.values.length - 1) return;
          input.value = k;
          input.dispatchEvent(new Event("input"));
        });
        return button;
      };
      var group = el("div", "pe-x-slider");
      group.appendChild(step(-1, "−", "decrease"));
      group.appendChild(input);
      group.appendChild(step(1, "+", "increase"));
      row.appendChild(group);
    }
    row.appendChild(out);
    box.appendChild(row);
    return { input: input, read: read, show: show, spec: spec };
  }
  function colors(root) {
    var cs = getComputedStyle(root), get = function (n) { return cs.getPropertyValue(n).trim(); };
    return {
      fg: get("--pe-x-fg"), grid: get("--pe-x-grid"), bg: get("--pe-x-bg"),
      grey: get("--pe-x-grey"),
      c: [get("--pe-x-c1"), get("--pe-x-c2"), get("--pe-x-c3"), get("--pe-x-c4"),
        get("--pe-x-c5")],
    };
  }
  // A uPlot chart in `host`; `spec`: {xlabel, ylabel, xlog, ylog, yrange, series: [{label,
  // color index, dash}], marks(): [{x, label}] or [{y, label}]}
  function Chart(host, root, spec) {
    this.host = host; this.root = root; this.spec = spec; this.plot = null; this.data = null;
  }
  Chart.prototype.build = function () {
    var spec = this.spec, col = colors(this.root), self = this;
    if (this.plot) this.plot.destroy();
    var font = "12px system-ui, sans-serif";
    var axis = function (label) {
      return { label: label, stroke: col.fg, font: font, labelFont: font, labelSize: 18,
        grid: { stroke: col.grid, width: 1 }, ticks: { stroke: col.grid, width: 1 } };
    };
    var series = [{ label: spec.xname || spec.xlabel }].concat(spec.series.map(function (s) {
      return { label: s.label, stroke: s.color === "grey" ? col.grey : col.c[s.color || 0],
        width: s.width || 1.5, dash: s.dash, points: { show: false }, spanGaps: false,
        value: function (u, v) { return v == null ? "–" : fmt(v, 3); } };
    }));
    // The legend shows the values under the cursor (none away from the chart).
    series[0].value = function (u, v) { return v == null ? "–" : fmt(v, 4); };
    var opts = {
      width: Math.max(200, this.host.clientWidth || 320),
      height: spec.height || 220,
      padding: [null, 28, null, null], // room for the last tick label of the x axis
      legend: { live: true },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: {
        x: { time: false, distr: spec.xlog ? 3 : 1 },
        y: spec.yrange ? { distr: spec.ylog ? 3 : 1, range: spec.yrange }
          : { distr: spec.ylog ? 3 : 1 },
      },
      axes: [Object.assign(axis(spec.xlabel), spec.xlog ? { values: decades } : {}),
        axis(spec.ylabel)],
      series: series,
      hooks: { draw: [function (u) { self.drawMarks(u, col); }] },
    };
    this.plot = new uPlot(opts, this.data || [[1, 2]].concat(spec.series.map(function () {
      return [null, null];
    })), this.host);
  };
  function decades(u, splits) { // log-axis labels: the powers of ten only, 1e4 and up short
    return splits.map(function (v) {
      if (v == null || !(v > 0)) return "";
      var e = Math.log10(v);
      if (Math.abs(e - Math.round(e)) > 1e-9) return "";
      return v >= 1e4 ? "1e" + Math.round(e) : String(Number(v.toPrecision(1)));
    });
  }
  Chart.prototype.drawMarks = function (u, col) {
    var marks = this.spec.marks ? this.spec.marks() : [];
    var ctx = u.ctx, px = window.devicePixelRatio || 1;
    ctx.save();
    ctx.font = 11 * px + "px system-ui, sans-serif";
    ctx.textAlign = "left"; // uPlot leaves the y axis' "right" (or the x axis' "center") set
    ctx.textBaseline = "alphabetic";
    ctx.strokeStyle = col.fg; ctx.lineWidth = px;
    var top = u.bbox.top, left = u.bbox.left, h = u.bbox.height, w = u.bbox.width;
    var pad = 3 * px, rowH = 14 * px, rows = []; // rows[r]: the [from, to] spans taken
    var label = function (text, x0, y) { // a halo of the background: no line cuts the text
      ctx.setLineDash([]);
      ctx.lineJoin = "round";
      ctx.lineWidth = 3 * px;
      ctx.strokeStyle = col.bg;
      ctx.strokeText(text, x0, y);
      ctx.fillStyle = col.fg;
      ctx.fillText(text, x0, y);
      ctx.lineWidth = px;
      ctx.strokeStyle = col.fg;
    };
    var place = function (from, to) { // the first row where [from, to] meets no other label
      for (var r = 0; ; r++) {
        rows[r] = rows[r] || [];
        var free = rows[r].every(function (s) { return to < s[0] - pad || from > s[1] + pad; });
        if (free || r >= 5) { rows[r].push([from, to]); return r; }
      }
    };
    var xs = marks.filter(function (m) { return m.x !== undefined; }).map(function (m) {
      return { m: m, x: u.valToPos(m.x, "x", true) };
    }).sort(function (a, b) { return a.x - b.x; });
    xs.forEach(function (o) {
      var x = o.x, text = o.m.label, off = !(x >= left && x <= left + w);
      if (off) { // beyond the chart: its name and value at that edge, no line
        text = x > left + w ? o.m.label + " = " + fmt(o.m.x, 3) + " →"
          : "← " + o.m.label + " = " + fmt(o.m.x, 3);
      } else {
        ctx.setLineDash([4 * px, 3 * px]);
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
        ctx.setLineDash([]);
      }
      var tw = ctx.measureText(text).width;
      var x0 = x + pad; // right of its line, or left of it where the chart ends
      if (off) x0 = x > left + w ? left + w - tw - pad : left + pad;
      else if (x0 + tw > left + w) x0 = x - pad - tw;
      var r = place(x0, x0 + tw);
      label(text, x0, top + 12 * px + r * rowH);
    });
    marks.forEach(function (m) {
      if (m.y === undefined) return;
      var y = u.valToPos(m.y, "y", true);
      if (!(y >= top && y <= top + h)) return;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + w, y); ctx.stroke();
      ctx.setLineDash([]);
      m.place = y;
    });
    // y labels inside the chart at its right end, above their line, or below it where the
    // label above would meet the previous one
    var last = null;
    marks.filter(function (m) { return m.place !== undefined; })
      .sort(function (a, b) { return a.place - b.place; }).forEach(function (m) {
        var tw = ctx.measureText(m.label).width, y = m.place - pad;
        if (last !== null && y - 11 * px < last + pad) y = m.place + 12 * px;
        label(m.label, left + w - tw - pad, y);
        last = y;
        delete m.place;
      });
    ctx.restore();
  };
  Chart.prototype.setData = function (data) {
    this.data = data;
    if (!this.plot) this.build();
    else this.plot.setData(data, true);
  };
  Chart.prototype.resize = function () {
    if (this.plot) this.plot.setSize({ width: Math.max(200, this.host.clientWidth),
      height: this.spec.height || 220 });
  };

  // The frame every explorer shares: title, controls, readout, charts; theme and size wiring.
  function frame(root, title, hint) {
    root.textContent = "";
    root.appendChild(el("div", "pe-x-title", title));
    if (hint) root.appendChild(el("div", "pe-x-hint", hint));
    var controls = el("div", "pe-x-controls");
    root.appendChild(controls);
    var readout = el("div", "pe-x-readout");
    readout.setAttribute("aria-live", "polite");
    root.appendChild(readout);
    return { controls: controls, readout: readout };
  }
  function chartBox(root, caption) {
    var fig = el("div", "pe-x-chart");
    if (caption) fig.appendChild(el("div", "pe-x-caption", caption));
    var host = el("div", "pe-x-plot");
    fig.appendChild(host);
    root.appendChild(fig);
    return host;
  }
  function wire(root, state, charts, update, redrawExtra) {
    var rebuild = function () {
      charts.forEach(function (c) { c.build(); });
      if (redrawExtra) redrawExtra();
    };
    if (window.ResizeObserver) {
      var last = root.clientWidth;
      new ResizeObserver(function () {
        if (root.clientWidth === last) return;
        last = root.clientWidth;
        charts.forEach(function (c) { c.resize(); });
        if (redrawExtra) redrawExtra();
      }).observe(root);
    }
    new MutationObserver(rebuild).observe(document.documentElement,
      { attributes: true, attributeFilter: ["data-theme", "data-mode"] });
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) mq.addEventListener("change", rebuild);
    }
  }
  function api(root, state, controls, update, values) {
    var choices = {};
    Object.keys(controls).forEach(function (name) {
      choices[name] = (controls[name].spec.options || controls[name].spec.values).slice();
    });
    var ex = {
      state: state,
      choices: choices, // what each control offers, in its order

      lastUpdateMs: 0,
      values: values,
      // set({name: value, ...}) through the controls, as a reader would
      set: function (changes) {
        Object.keys(changes).forEach(function (name) {
          var c = controls[name];
          if (!c) throw new Error("no control " + name);
          var v = changes[name];
          if (c.spec.options) {
            if (c.spec.options.indexOf(v) < 0) throw new Error(name + ": no option " + v);
            c.input.value = v;
          } else {
            var k = c.spec.values.indexOf(v);
            if (k < 0) throw new Error(name + ": no value " + v);
            c.input.value = k;
          }
          c.show();
          state[name] = v;
        });
        ex.update();
        return ex.values();
      },
      update: function () {
        var t0 = performance.now();
        update();
        ex.lastUpdateMs = performance.now() - t0;
      },
    };
    root.__explorer = ex;
    root.setAttribute("data-ready", "1");
    return ex;
  }
  function setup(root, specs, state, onChange) {
    var box = root.querySelector(".pe-x-controls"), controls = {};
    specs.forEach(function (spec) {
      controls[spec.name] = control(box, spec, state[spec.name], function (name, v) {
        state[name] = v;
        onChange();
      });
    });
    return controls;
  }
  var DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
  var BASES = [1.0001, 1.001, 1.01, 1.1, 1.5, 2, 10, 100, 1000, 10000, 100000, 1000000];
  var showBase = function (b) { return b >= 1e4 ? "1e" + Math.round(Math.log10(b)) : String(b); };
  var LAYOUTS = ["interleaved", "interleaved_cos_first", "concatenated",
    "concatenated_cos_first"];

  // ---- chapter 2: the table, waves of pairs, the inner-product row --------------------------
  function encoding(root, cfg) {
    var L = cfg.length;
    var state = { dim: cfg.dim, base: cfg.base, layout: cfg.layout, position: cfg.position,
      pair: cfg.pair };
    var parts = frame(root, "The encoding table p_m",
      "Move d, b and the layout; pick a position m and a pair i.");
    var specs = [
      { name: "dim", label: "dimension d", values: DIMS },
      { name: "base", label: "base b", values: BASES, show: showBase },
      { name: "layout", label: "layout", options: LAYOUTS },
      { name: "position", label: "position m", values: range(0, L - 1) },
      { name: "pair", label: "pair i", values: range(0, 2047) },
    ];
    var heat = el("canvas", "pe-x-heat");
    heat.setAttribute("role", "img");
    var heatBox = el("div", "pe-x-chart");
    heatBox.appendChild(el("div", "pe-x-caption",
      "p_m: rows m = 0 … " + (L - 1) + " (top to bottom), columns 0 … d−1; −1 blue, +1 red; " +
      "row m outlined"));
    heatBox.appendChild(heat);
    root.appendChild(heatBox);
    var wave = new Chart(chartBox(root, "Waves sin(m θ_i) of three pairs"), root, {
      xlabel: "position m", ylabel: "sin(m θ_i)", yrange: [-1.05, 1.05],
      series: [{ label: "pair 0", color: 0 }, { label: "pair i", color: 1 },
        { label: "pair d/2−1", color: 2 }],
      marks: function () { return [{ x: state.position, label: "m" }]; },
    });
    var row = new Chart(chartBox(root, "Inner products ⟨p_m, p_n⟩ for the chosen m"), root, {
      xlabel: "position n", ylabel: "⟨p_m, p_n⟩",
      series: [{ label: "⟨p_m, p_n⟩", color: 0 }],
      marks: function () { return [{ x: state.position, label: "n = m" }]; },
    });
    var current = null, heatOff = null;
    function update() {
      var d = state.dim, b = state.base, pc = controls.pair;
      pc.input.max = d / 2 - 1; // the pair slider spans the d/2 pairs of this d
      if (state.pair > d / 2 - 1) state.pair = d / 2 - 1;
      pc.input.value = state.pair;
      pc.show();
      var pair = state.pair;
      var tab = table(L, d, b, state.layout);
      var th = frequencies(d, b);
      var pairs = [0, pair, d / 2 - 1];
      var xs = [], ys = [[], [], []];
      for (var k = 0; k <= 4 * (L - 1); k++) {
        var m = k / 4;
        xs.push(m);
        for (var j = 0; j < 3; j++) ys[j].push(Math.sin(m * th[pairs[j]]));
      }
      var inner = new Float64Array(L), m0 = state.position;
      for (var n = 0; n < L; n++) {
        var s = 0;
        for (var c = 0; c < d; c++) s += tab[m0 * d + c] * tab[n * d + c];
        inner[n] = s;
      }
      current = { dim: d, base: b, layout: state.layout, position: m0, pair: pair,
        length: L, pairs: pairs, table: tab, wave_positions: xs, waves: ys,
        inner_product: inner };
      drawHeat();
      wave.setData([xs].concat(ys));
      row.setData([Array.from(range(0, L - 1)), Array.from(inner)]);
      parts.readout.textContent =
        "θ_i = " + showBase(b) + "^(−2i/" + d + "): pair " + pair + " has θ = " +
        fmt(th[pair]) + " rad/token, wavelength " + fmt((2 * Math.PI) / th[pair]) +
        " tokens; ⟨p_m, p_m⟩ = d/2 = " + d / 2 + "." +
        // b near 1: every pair turns by nearly 1 rad per token, and the waves lie on one another
        ((L - 1) * Math.abs(th[pairs[0]] - th[pairs[2]]) < 0.05
          ? " The three waves coincide on this chart (one line shows): at b = " + showBase(b) +
            " every θ_i is within " + fmt(Math.abs(th[pairs[0]] - th[pairs[2]]), 2) +
            " rad/token of the others."
          : "");
    }
    function drawHeat() {
      if (!current) return;
      var d = current.dim, tab = current.table;
      var width = Math.max(200, heat.parentNode.clientWidth || 320);
      var px = window.devicePixelRatio || 1, height = 160;
      heat.style.width = width + "px";
      heat.style.height = height + "px";
      heat.width = Math.round(width * px);
      heat.height = Math.round(height * px);
      var img = new ImageData(d, L), data = img.data;
      for (var k = 0; k < L * d; k++) {
        var v = tab[k], w = v >= 0 ? 255 - 255 * v : 255 + 255 * v; // clamped array rounds
        data[4 * k] = v >= 0 ? 255 : w; data[4 * k + 1] = w;
        data[4 * k + 2] = v >= 0 ? w : 255; data[4 * k + 3] = 255;
      }
      var off = heatOff || (heatOff = document.createElement("canvas"));
      off.width = d; off.height = L;
      off.getContext("2d").putImageData(img, 0, 0);
      var ctx = heat.getContext("2d");
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(off, 0, 0, heat.width, heat.height);
      var rowH = heat.height / L, col = colors(root);
      ctx.strokeStyle = col.fg; ctx.lineWidth = 2 * px;
      ctx.strokeRect(1, current.position * rowH, heat.width - 2, rowH);
      heat.setAttribute("aria-label", "heatmap of the table for d = " + d + ", position " +
        current.position + " outlined");
    }
    var controls = setup(root, specs, state, function () { ex.update(); });
    var ex = api(root, state, controls, update, function () { return current; });
    wire(root, state, [wave, row], update, drawHeat);
    ex.update();
  }
  function range(a, b) {
    var out = [];
    for (var k = a; k <= b; k++) out.push(k);
    return out;
  }

  // ---- chapter 5: the kernel, the integral, the regime forms, Delta* ------------------------
  var WINDOWS = [10, 100, 1000, 10000, 100000, 1000000];
  // Where a regime form is within FORM_TOL of the integral, on the chart's points xs: the run
  // of points from the first one ("first"), up to the last one ("last"), or the longest run
  // inside lo < Δ < hi ("longest"); [from, to] or null. A run counts only if it spans a factor
  // of FORM_EXTENT or more in Δ (to ≥ FORM_EXTENT · from): a form that merely crosses the
  // integral, within FORM_TOL at a point or two, has no range.
  var FORM_TOL = 0.01, FORM_EXTENT = 2;
  function formRange(xs, form, integral, which, lo, hi) {
    var n = xs.length, best = null, a, z;
    var ok = function (k) {
      return xs[k] > lo && xs[k] < hi && Math.abs(form[k] - integral[k]) <= FORM_TOL;
    };
    for (a = 0; a < n; a = z + 1) {
      for (z = a; z < n && ok(z); z++);
      var run = [a, z - 1];
      if (z === a || xs[run[1]] < FORM_EXTENT * xs[run[0]]) continue;
      if ((which === "first" && a !== 0) || (which === "last" && z !== n)) continue;
      if (best === null || run[1] - run[0] > best[1] - best[0]) best = run;
    }
    return best === null ? null : [xs[best[0]], xs[best[1]]];
  }
  function kernel(root, cfg) {
    var state = { dim: cfg.dim, base: cfg.base, window: cfg.window };
    var parts = frame(root, "The kernel κ(Δ), its integral and its regimes",
      "Move d and b: where does the sum (grey) leave the integral (blue)? Δ* is printed.");
    var specs = [
      { name: "dim", label: "dimension d", values: DIMS },
      { name: "base", label: "base b", values: BASES, show: showBase },
      { name: "window", label: "largest offset Δ", values: WINDOWS, show: showBase },
    ];
    var chart = new Chart(chartBox(root, null), root, {
      xlabel: "offset Δ (log axis)", xlog: true, ylabel: "κ(Δ)", yrange: [-1, 1.05],
      height: 260,
      // Fig. 5.1's colours: sum grey, integral blue, quadratic pink, logarithmic orange, 1/Δ green
      series: [{ label: "sum κ", color: "grey" }, { label: "integral κ̄", color: 0, width: 2 },
        { label: "quadratic", color: 3, width: 2.5 },
        { label: "logarithmic", color: 1, dash: [5, 4], width: 2.5 },
        { label: "1/Δ", color: 2, width: 2.5 }],
      marks: function () {
        return [{ x: deltaStar(state.dim, state.base), label: "Δ*" },
          { x: 1, label: "Δ = 1" }, { x: state.base, label: "Δ = b" }];
      },
    });
    var current = null;
    function update() {
      var d = state.dim, b = state.base, hi = state.window;
      var xs = geomspace(0.01, hi, 240);
      var sum = kernelSum(xs, d, b);
      var n = xs.length, integral = new Float64Array(n), taylor = new Float64Array(n),
        logf = new Float64Array(n), osc = new Float64Array(n);
      for (var k = 0; k < n; k++) {
        integral[k] = kernelIntegral(xs[k], b);
        taylor[k] = kernelTaylor(xs[k], b);
        logf[k] = kernelLog(xs[k], b);
        osc[k] = kernelOscillatory(xs[k], b);
      }
      var star = deltaStar(d, b);
      var ranges = {
        taylor: formRange(xs, taylor, integral, "first", 0, Infinity),
        log: formRange(xs, logf, integral, "longest", 1, b),
        oscillatory: formRange(xs, osc, integral, "last", 0, Infinity),
      };
      current = { dim: d, base: b, window: hi, delta: xs, kernel: sum,
        kernel_integral: integral, kernel_taylor: taylor, kernel_log: logf,
        kernel_oscillatory: osc, delta_star: star, boundaries: [1, b],
        form_tolerance: FORM_TOL, form_extent: FORM_EXTENT, form_ranges: ranges };
      var only = function (a, r) { // each form drawn only where it is within FORM_TOL
        return Array.from(a, function (v, k) {
          return r !== null && xs[k] >= r[0] && xs[k] <= r[1] ? v : null;
        });
      };
      chart.setData([Array.from(xs), Array.from(sum), Array.from(integral),
        only(taylor, ranges.taylor), only(logf, ranges.log), only(osc, ranges.oscillatory)]);
      var where = star > hi ? " (beyond this chart, which ends at Δ = " + showBase(hi) + ")"
        : star < xs[0] ? " (below this chart, which starts at Δ = " + xs[0] + ")" : "";
      var span = function (r, name) {
        if (r === null) return "no " + name + " range in this window";
        if (r[0] === xs[0]) return name + " up to Δ ≈ " + fmt(r[1], 2);
        if (r[1] === xs[n - 1]) return name + " from Δ ≈ " + fmt(r[0], 2);
        return name + " for " + fmt(r[0], 2) + " ≲ Δ ≲ " + fmt(r[1], 2);
      };
      var regimes = ranges.log !== null ? ""
        : b <= 10 ? "At b = " + showBase(b) + " there is no logarithmic range: 1 ≪ Δ ≪ b is " +
          "empty, and the integral goes from its quadratic start to the 1/Δ form. "
        : "There is no logarithmic range in this window. ";
      parts.readout.textContent =
        "Δ* = πd / ln b = " + fmt(star, 4) + where + ": the sum follows the integral to " +
        "about 2/d = " + fmt(2 / d, 3) + " well below Δ* and fluctuates around it beyond. " +
        regimes + "Each form is drawn on its range: the run of chart points, spanning a " +
        "factor " + FORM_EXTENT + " or more in Δ, where it is within " + FORM_TOL +
        " of the integral (as in Fig. 5.1): " + span(ranges.taylor, "quadratic") + ", " +
        span(ranges.log, "logarithmic") + ", " + span(ranges.oscillatory, "1/Δ") + ".";
    }
    var controls = setup(root, specs, state, function () { ex.update(); });
    var ex = api(root, state, controls, update, function () { return current; });
    wire(root, state, [chart], update);
    ex.update();
  }

  // ---- chapter 8: relative rotary score and RoFormer's quantity ------------------------------
  function rotary(root, cfg) {
    var state = { dim: cfg.dim, base: cfg.base, window: cfg.window };
    var parts = frame(root, "Rotary score and RoFormer's bound against the offset",
      "Move d and b: for d ≥ 8 and 1.5 ≤ b ≤ 1e4 both fall, then stay near their Δ → ∞ " +
      "levels (marked); at d = 2 neither falls.");
    var specs = [
      { name: "dim", label: "dimension d", values: DIMS },
      { name: "base", label: "base b", values: BASES, show: showBase },
      { name: "window", label: "largest offset Δ", values: WINDOWS, show: showBase },
    ];
    var floors = function () {
      var d = state.dim, walk = 0;
      for (var j = 1; j <= d / 2; j++) walk += Math.sqrt(Math.PI * j) / 2;
      return { score: 1 / Math.sqrt(d), level: walk / (d / 2) / ((d / 2 + 1) / 2) };
    };
    var chart = new Chart(chartBox(root, null), root, {
      xlabel: "offset Δ (log axis)", xlog: true, ylabel: "relative to Δ = 0",
      yrange: [-0.6, 1.05], height: 260,
      series: [{ label: "score s(Δ)/s(0), q = k = 1", color: 0 },
        { label: "RoFormer's quantity / its value at 0", color: 1, width: 2 }],
      marks: function () {
        var f = floors();
        return [{ y: f.score, label: "rms floor 1/√d" },
          { y: f.level, label: "random-phase level" }];
      },
    });
    var current = null;
    function update() {
      var d = state.dim, b = state.base;
      var xs = integerOffsets(state.window, 160);
      var curves = rotaryCurves(xs, d, b), start = (d / 2 + 1) / 2, f = floors();
      var rel = Float64Array.from(curves.level, function (v) { return v / start; });
      current = { dim: d, base: b, window: state.window, delta: xs,
        relative_score: curves.score, roformer_quantity: curves.level,
        roformer_at_zero: start, rms_floor: f.score, random_phase_level: f.level };
      chart.setData([Array.from(xs), Array.from(curves.score), Array.from(rel)]);
      parts.readout.textContent =
        "At Δ = 0 the quantity (2/d) Σ_j |S_j| is (d/2 + 1)/2 = " + fmt(start, 4) +
        "; at Δ = " + showBase(state.window) + " it is " + fmt(curves.level[xs.length - 1], 4) +
        ". The score of q = k = 1 is d κ(Δ); its long-run rms relative to s(0) is 1/√d = " +
        fmt(f.score, 3) + ".";
    }
    var controls = setup(root, specs, state, function () { ex.update(); });
    var ex = api(root, state, controls, update, function () { return current; });
    wire(root, state, [chart], update);
    ex.update();
  }

  // ---- training length: scaling methods' frequency maps and the trained range ----------------
  function scaling(root, cfg) {
    var state = { method: cfg.method, factor: cfg.factor, trained: cfg.trained,
      dim: cfg.dim, base: cfg.base };
    var parts = frame(root, "Rotary scaling: frequency map and trained range",
      "Pick a method and a factor s: which pairs turn further at s·L than in training?");
    var specs = [
      { name: "method", label: "method", options: ["default", "linear", "dynamic", "yarn",
        "llama3"] },
      { name: "factor", label: "factor s", values: [1, 1.5, 2, 4, 8, 16, 32, 64] },
      { name: "trained", label: "training length L", values: [256, 512, 1024, 2048, 4096,
        8192, 16384, 32768] },
      { name: "dim", label: "head dimension d", values: DIMS.slice(1) },
      { name: "base", label: "base b", values: BASES, show: showBase },
    ];
    var ratio = new Chart(chartBox(root, "Frequency map θ′_i / θ_i"), root, {
      xlabel: "pair i", ylabel: "θ′_i / θ_i", ylog: true,
      series: [{ label: "θ′_i / θ_i", color: 0, width: 2 }],
    });
    var angles = new Chart(chartBox(root, "Largest angle per pair (rad, log axis)"), root, {
      xlabel: "pair i", ylabel: "angle (rad)", ylog: true, height: 240,
      series: [{ label: "seen in training, L θ_i", color: 1, width: 2 },
        { label: "needed at s·L, s L θ′_i", color: 0 }],
      marks: function () { return [{ y: 2 * Math.PI, label: "2π: a full turn" }]; },
    });
    var current = null;
    function update() {
      var d = state.dim, b = state.base, s = state.factor, L = state.trained;
      var target = Math.round(s * L);
      var r = ropeFrequencies(state.method, d, b, s, L, target);
      var n = d / 2, idx = [], q = [], seen = [], need = [], beyond = 0;
      for (var i = 0; i < n; i++) {
        idx.push(i);
        q.push(r.scaled[i] / r.theta[i]);
        seen.push(L * r.theta[i]);
        need.push(target * r.scaled[i]);
        if (need[i] > seen[i] * (1 + 1e-12) && seen[i] < 2 * Math.PI) beyond++;
      }
      var allDivided = state.method === "yarn" && s > 1 && q.every(function (v) {
        return Math.abs(v * s - 1) < 1e-9;
      });
      current = { method: state.method, factor: s, trained: L, target: target, dim: d,
        base: b, theta: r.theta, scaled: r.scaled, attention: r.attention,
        ratio: Float64Array.from(q), trained_angle: Float64Array.from(seen),
        needed_angle: Float64Array.from(need), beyond: beyond,
        all_divided: allDivided };
      ratio.setData([idx, q]);
      angles.setData([idx, seen, need]);
      parts.readout.textContent =
        "Target length s·L = " + target + ". Pairs that turn further there than in training " +
        "(and never made a full turn in training): " + beyond + " of " + n +
        ". Attention factor a = " + fmt(r.attention, 4) + "." + (allDivided
          ? " YaRN divides every pair by s here, the fast ones too: at this b its clamped " +
            "correction range has low > high, which inverts the ramp (as in transformers)."
          : "");
    }
    var controls = setup(root, specs, state, function () { ex.update(); });
    var ex = api(root, state, controls, update, function () { return current; });
    wire(root, state, [ratio, angles], update);
    ex.update();
  }

  var KINDS = { encoding: encoding, kernel: kernel, rotary: rotary, scaling: scaling };
  for (var name in KINDS) registry.kinds[name] = KINDS[name];
})();
