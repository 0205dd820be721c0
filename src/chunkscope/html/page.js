// chunkscope HTML report: renders the embedded report data. Every number shown is read from the
// embedded JSON report (or the detail computed beside it); nothing is computed here but layout.
// Text from the corpus, questions and ids is only ever inserted as text (textContent / text nodes).
"use strict";
(function () {
  document.addEventListener("securitypolicyviolation", function (e) {
    console.error("blocked by the Content-Security-Policy: " + e.violatedDirective + " " + e.blockedURI);
  });
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var R = DATA.report;
  var KIND = DATA.kind;
  var DET = DATA.detail;
  var STATES = ["1", "2-5", "6-20", "pieces", "miss", "lost"];
  var STATE_GLYPH = { "1": "①", "2-5": "②", "6-20": "③", pieces: "⧉", miss: "✗", lost: "✂" };
  var STATE_CLASS = { "1": "good", "2-5": "good", "6-20": "warn", pieces: "warn", miss: "bad", lost: "bad" };
  var BUCKETS = ["1", "2-5", "6-20", "miss"];

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var key in attrs) {
        if (key === "text") node.textContent = attrs[key];
        else if (key === "cls") node.className = attrs[key];
        else node.setAttribute(key, attrs[key]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    return node;
  }
  function fmt(value) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
    return String(value);
  }
  function numCell(value, attrs) {
    var td = el("td", attrs || {}, fmt(value));
    td.className = "num";
    if (typeof value === "number") td.setAttribute("data-value", JSON.stringify(value));
    return td;
  }
  function section(id, title) {
    var node = document.getElementById(id);
    node.appendChild(el("h2", { text: title }));
    node.hidden = false;
    return node;
  }
  function labelOf(config, index) {
    if (config.label) return config.label;
    if (DET && DET.runs[index]) return DET.runs[index].label;
    return config.chunker + "/" + config.retriever;
  }
  // The answers part (answers.js), given the page's helpers.
  var A = chunkscopeAnswers({ el: el, fmt: fmt, numCell: numCell, section: section, labelOf: labelOf, filterCell: filterCell,
    R: R, DET: DET, KIND: KIND });

  // ---- provenance ----
  function provenance() {
    var node = section("provenance", "Provenance");
    node.appendChild(
      el("p", null, "chunkscope ", el("span", { id: "version", text: R.chunkscope_version }), " · ", KIND,
        " report · generated ", el("span", { id: "generated", text: DATA.generated }))
    );
    var inputs = el("table", { id: "inputs" }, el("tr", null, el("th", { text: "input" }), el("th", { text: "sha256" })));
    R.inputs.forEach(function (input) {
      inputs.appendChild(el("tr", null, el("td", { cls: "mono", text: input.path }), el("td", { cls: "mono", text: input.sha256 })));
    });
    node.appendChild(inputs);
    var configs = el("table", { id: "configs" },
      el("tr", null, el("th", { text: "#" }), el("th", { text: "chunker" }), el("th", { text: "retriever" }),
        el("th", { text: "top-k" }), el("th", { text: "budget" }), el("th", { text: "overflow" })));
    R.configs.forEach(function (c, i) {
      configs.appendChild(el("tr", null, el("td", { text: String(i + 1) }), el("td", { cls: "mono", text: c.chunker }),
        el("td", { cls: "mono", text: c.retriever }), numCell(c.top_k), numCell(c.budget), el("td", { text: c.overflow })));
    });
    node.appendChild(el("div", { cls: "scroll" }, configs));
    if (R.excluded_questions) node.appendChild(el("p", { text: "Excluded at load: " + R.excluded_questions + " questions." }));
    A.blocks.forEach(function (b) {
      if (b && b.answers) {
        node.appendChild(el("p", { cls: "answers-owner" }, "Answers (", el("code", { text: b.answers.source }), ") belong to ",
          el("b", { cls: "mono", text: b.answers.configuration }), ": " + b.answers.why_this_configuration + "."));
      }
    });
    if (!R.inputs.length) node.appendChild(el("p", { cls: "muted", text: "The report names no input." }));
    if (!DET) node.appendChild(el("p", { cls: "warn", text: "Rendered from a saved JSON report: question texts, documents and per-question chunks are not in it (write --html with the run to include them)." }));
  }

  // ---- metrics ----
  var MARK_GLYPH = { best: "★", worse: "▼" };
  function metrics() {
    var node = section("metrics", "Metrics");
    var keys = Object.keys(R.configs[0].summary).filter(function (k) { return k !== "rank_buckets"; });
    var head = el("tr", null, el("th", { text: "configuration" }));
    keys.forEach(function (k) { head.appendChild(el("th", { cls: "num", text: k })); });
    var table = el("table", { id: "metrics-table" }, head);
    R.configs.forEach(function (c, i) {
      var row = el("tr", null, el("th", { cls: "mono", text: labelOf(c, i) }));
      keys.forEach(function (k) {
        var td = numCell(c.summary[k], { "data-config": String(i), "data-metric": k });
        var mark = c.marks && c.marks[k];
        if (mark) {
          td.appendChild(el("span", { cls: mark === "best" ? "good" : "bad", title: mark, text: " " + MARK_GLYPH[mark] }));
        }
        row.appendChild(td);
      });
      table.appendChild(row);
    });
    node.appendChild(el("div", { cls: "scroll" }, table));
    if (KIND === "sweep") {
      node.appendChild(el("p", { cls: "legend", text: "★ best mean; ▼ significantly below the best (" + R.correction + " correction over " + R.family_size + " tests). " + R.note }));
    }
    if (KIND === "compare") tests(node, R.comparison);
  }
  function tests(node, comparison) {
    node.appendChild(el("h3", { text: "A = " + comparison.a.label + "  vs  B = " + comparison.b.label }));
    var table = el("table", { id: "tests-table" }, el("tr", null, el("th", { text: "metric" }), el("th", { cls: "num", text: "mean A" }),
      el("th", { cls: "num", text: "mean B" }), el("th", { cls: "num", text: "Δ (B−A)" }), el("th", { cls: "num", text: "95% interval" }),
      el("th", { cls: "num", text: "p" }), el("th", { text: "significant" })));
    comparison.tests.forEach(function (t) {
      var ci = el("td", { cls: "num", "data-low": JSON.stringify(t.ci95[0]), "data-high": JSON.stringify(t.ci95[1]) },
        "[" + fmt(t.ci95[0]) + ", " + fmt(t.ci95[1]) + "]");
      var sig = t.significant
        ? el("td", { cls: "good", "data-significant": "true", text: "✱ yes" })
        : el("td", { cls: "muted", "data-significant": "false", text: "· no" });
      table.appendChild(el("tr", { "data-metric": t.metric }, el("td", { text: t.metric }), numCell(t.mean_a), numCell(t.mean_b),
        numCell(t.delta), ci, numCell(t.p_value), sig));
    });
    node.appendChild(table);
    var s = comparison.test_settings;
    node.appendChild(el("p", { cls: "legend", text: "✱ significant at α=" + s.alpha + " (" + s.test + ", " + s.permutations +
      " permutations, " + s.bootstrap_resamples + " bootstrap resamples, correction " + s.correction + "). " + R.note }));
  }

  // ---- bucket bars ----
  function buckets() {
    var node = section("buckets", "First correct rank");
    var table = el("table", { id: "bucket-table" });
    R.configs.forEach(function (c, i) {
      var counts = c.summary.rank_buckets;
      var total = BUCKETS.reduce(function (s, b) { return s + (counts[b] || 0); }, 0) || 1;
      var bar = el("div", { cls: "bar", role: "img", "aria-label": BUCKETS.map(function (b) { return b + ": " + counts[b]; }).join(", ") });
      var legend = el("td", { cls: "mono" });
      BUCKETS.forEach(function (b, j) {
        var part = el("span", { cls: "s" + (j === 3 ? 5 : j + 1), title: b + ": " + counts[b] });
        part.style.width = (100 * (counts[b] || 0) / total) + "%";
        bar.appendChild(part);
        legend.appendChild(el("span", { "data-bucket": b, "data-config": String(i), "data-value": String(counts[b]) },
          (j ? " · " : "") + (b === "miss" ? "✗ miss: " : (j ? "" : "rank ") + b + ": ") + counts[b]));
      });
      table.appendChild(el("tr", null, el("th", { cls: "mono", text: labelOf(c, i) }), el("td", null, bar), legend));
    });
    node.appendChild(el("div", { cls: "scroll" }, table));
  }

  // ---- failure causes ----
  function causes() {
    var node = section("causes", "Failure causes");
    var causeNames = Object.keys(R.configs[0].diagnosis.counts);
    var head = el("tr", null, el("th", { text: "configuration" }));
    causeNames.forEach(function (k) { head.appendChild(el("th", { cls: "num", text: k })); });
    head.appendChild(el("th", { text: "look first at" }));
    var table = el("table", { id: "causes-table" }, head);
    R.configs.forEach(function (c, i) {
      var row = el("tr", null, el("th", { cls: "mono", text: labelOf(c, i) }));
      causeNames.forEach(function (k) {
        var td = numCell(c.diagnosis.counts[k], { "data-config": String(i), "data-cause": k });
        if (!c.diagnosis.counts[k]) td.classList.add("zero");
        row.appendChild(td);
      });
      var look = c.diagnosis.look_first;
      row.appendChild(el("td", null, look ? el("b", { text: "→ " + look + ": " }) : "nothing: every question OK", c.diagnosis.advice || ""));
      table.appendChild(row);
    });
    node.appendChild(el("div", { cls: "scroll" }, table));
  }

  // ---- transition matrix (compare) ----
  // A count cell of a matrix whose click lists the cell's questions (again: clears). filter(): whether this cell's
  // filter is the one set; filter(on): also sets it (on) or clears it.
  function filterCell(td, count, title, table, filter) {
    var button = el("button", { cls: "cell-btn", type: "button", title: title, text: String(count) });
    button.addEventListener("click", function () {
      var active = filter();
      document.querySelectorAll(table + " td.active").forEach(function (n) { n.classList.remove("active"); });
      filter(!active);
      if (!active) td.classList.add("active");
      applyFilter();
    });
    td.appendChild(button);
  }
  var stateFilter = null;
  function transitions() {
    var comparison = R.comparison;
    var node = section("transitions", "Transitions: A (rows) → B (columns)");
    var matrix = comparison.transitions.rows_a_columns_b;
    var states = comparison.transitions.states;
    var head = el("tr", null, el("th", { text: "A \\ B" }));
    states.forEach(function (s) { head.appendChild(el("th", { cls: "num", text: STATE_GLYPH[s] + " " + s })); });
    var table = el("table", { id: "transition-table" }, head);
    states.forEach(function (sa, i) {
      var row = el("tr", null, el("th", { text: STATE_GLYPH[sa] + " " + sa }));
      states.forEach(function (sb, j) {
        var count = matrix[i][j];
        var td = el("td", { cls: "num", "data-a": sa, "data-b": sb, "data-value": String(count) });
        if (!count) td.classList.add("zero");
        filterCell(td, count, "show the questions " + sa + " → " + sb, "#transition-table", function (on) {
          var active = stateFilter && stateFilter[0] === sa && stateFilter[1] === sb;
          if (on !== undefined) stateFilter = on ? [sa, sb] : null;
          return active;
        });
        row.appendChild(td);
      });
      table.appendChild(row);
    });
    node.appendChild(table);
    var counts = comparison.counts;
    node.appendChild(el("p", { cls: "legend", text: "better " + counts.better + " · worse " + counts.worse + " · same " + counts.same +
      " · recovered " + counts.recovered + " · newly lost " + counts.newly_lost + ". Click a cell to list its questions; again to clear." +
      (DET ? "" : " (From a saved report only the moved questions are listed.)") }));
  }

  // ---- sweep map ----
  function sweepMap() {
    var node = section("sweepmap", "Sweep map");
    var byLabel = {};
    R.configs.forEach(function (c) { byLabel[c.label] = c; });
    var metric = R.pareto.metric;
    var grid = R.grid;
    if (grid && grid.rows && grid.rows.length) {
      node.appendChild(el("h3", { text: "Heatmap: " + metric + " by size and overlap (" + grid.overlap_unit + ")" }));
      var values = [];
      grid.cells.forEach(function (row) { row.forEach(function (label) { if (label && byLabel[label]) values.push(byLabel[label].summary[metric]); }); });
      var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
      var head = el("tr", null, el("th", { text: "size \\ overlap" }));
      grid.overlaps.forEach(function (o) { head.appendChild(el("th", { cls: "num", text: String(o) })); });
      var table = el("table", { id: "heatmap" }, head);
      grid.rows.forEach(function (place, i) {
        var row = el("tr", null, el("th", { text: place.family + " " + place.size }));
        grid.overlaps.forEach(function (o, j) {
          var label = grid.cells[i][j];
          if (!label || !byLabel[label]) { row.appendChild(el("td", { cls: "muted", text: "–" })); return; }
          var value = byLabel[label].summary[metric];
          var td = numCell(value, { "data-label": label, title: label });
          var share = hi > lo ? (value - lo) / (hi - lo) : 1;
          td.style.background = "rgba(0, 114, 178, " + (0.08 + 0.6 * share).toFixed(3) + ")";
          if (R.pareto.frontier.indexOf(label) >= 0) td.appendChild(el("span", { title: "on the Pareto frontier", text: " ◆" }));
          row.appendChild(td);
        });
        table.appendChild(row);
      });
      node.appendChild(table);
      node.appendChild(el("p", { cls: "legend", text: "darker is higher; ◆ on the Pareto frontier. Off the grid: " + (grid.off_grid.length ? grid.off_grid.join(", ") : "none") }));
    }
    scatter(node, metric, R.pareto.cost);
  }
  function scatter(node, metric, cost) {
    node.appendChild(el("h3", { text: "Cost and quality: " + metric + " against " + cost + " (Pareto frontier dashed)" }));
    var W = 760, H = 320, M = 56;
    var pts = R.configs.map(function (c) { return { x: c.summary[cost], y: c.summary[metric], c: c }; });
    var xs = pts.map(function (p) { return p.x; }), ys = pts.map(function (p) { return p.y; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) { x1 += 1; x0 -= 1; }
    if (y1 === y0) { y1 += 0.05; y0 -= 0.05; }
    function px(x) { return M + (W - 2 * M) * (x - x0) / (x1 - x0); }
    function py(y) { return H - M + -(H - 2 * M) * (y - y0) / (y1 - y0); }
    var chart = svg("svg", { id: "scatter", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": metric + " against " + cost });
    chart.appendChild(svg("line", { "class": "axis", x1: M, y1: H - M, x2: W - M, y2: H - M }));
    chart.appendChild(svg("line", { "class": "axis", x1: M, y1: M, x2: M, y2: H - M }));
    [[x0, px(x0)], [x1, px(x1)]].forEach(function (t) { var n = svg("text", { x: t[1], y: H - M + 16, "text-anchor": "middle" }); n.textContent = fmt(t[0]); chart.appendChild(n); });
    [[y0, py(y0)], [y1, py(y1)]].forEach(function (t) { var n = svg("text", { x: M - 4, y: t[1] + 4, "text-anchor": "end" }); n.textContent = fmt(t[0]); chart.appendChild(n); });
    var xl = svg("text", { x: W / 2, y: H - 10, "text-anchor": "middle" }); xl.textContent = cost + " (cost) →"; chart.appendChild(xl);
    var yl = svg("text", { x: 12, y: M - 12 }); yl.textContent = "↑ " + metric; chart.appendChild(yl);
    var frontier = pts.filter(function (p) { return p.c.pareto; }).sort(function (a, b) { return a.x - b.x; });
    if (frontier.length > 1) {
      chart.appendChild(svg("polyline", { "class": "frontier", points: frontier.map(function (p) { return px(p.x) + "," + py(p.y); }).join(" ") }));
    }
    pts.forEach(function (p) {
      var on = !!p.c.pareto;
      var shape = on
        ? svg("path", { "class": "pt onf", d: "M" + px(p.x) + " " + (py(p.y) - 6) + " l6 6 l-6 6 l-6 -6 z", "data-label": p.c.label })
        : svg("circle", { "class": "pt", cx: px(p.x), cy: py(p.y), r: 4, "data-label": p.c.label });
      var tip = svg("title", {}); tip.textContent = p.c.label + ": " + cost + " " + fmt(p.x) + ", " + metric + " " + fmt(p.y) + (on ? " (on the frontier)" : "");
      shape.appendChild(tip);
      chart.appendChild(shape);
      var name = svg("text", { x: px(p.x) + 8, y: py(p.y) - 6, "class": "pt-label" });
      name.textContent = p.c.label.length > 34 ? p.c.label.slice(0, 33) + "…" : p.c.label;
      chart.appendChild(name);
    });
    node.appendChild(el("div", { cls: "scroll" }, chart));
    node.appendChild(el("p", { cls: "legend", text: "◆ on the frontier: " + R.pareto.frontier.join(", ") + "; ● dominated. Hover a point for its configuration." }));
  }

  // ---- questions ----
  var items = [];
  function buildItems() {
    if (DET) {
      DET.questions.forEach(function (q, i) {
        var rows = DET.runs.map(function (run) { return run.rows[i]; });
        items.push({ index: i, id: q.id, query: q.query, states: rows.map(function (r) { return r[0]; }),
          failing: rows.some(function (r) { return r[2] !== "OK"; }), approx: q.gold.some(function (g) { return g[4]; }),
          answers: DET.runs.map(function (run) { return run.answers ? (run.answers[i] ? run.answers[i][3] : "none") : null; }),
          answerMove: DET.answer_transitions ? DET.answer_transitions[i] : null });
      });
    } else if (KIND === "eval" && R.configs[0].questions) {
      R.configs[0].questions.forEach(function (q, i) {
        var states = R.configs.map(function (c) { var r = c.questions[i]; return r.pieces && (r.bucket === "miss" || !r.evidence_exists) ? "pieces" : (!r.evidence_exists ? "lost" : r.bucket); });
        items.push({ index: i, id: q.id, query: "", states: states, failing: R.configs.some(function (c) { return c.questions[i].failure_cause !== "OK"; }),
          answers: R.configs.map(function (c) { var r = c.questions[i]; return "answer_attribution" in r ? r.answer_attribution || "none" : null; }) });
      });
    } else if (KIND === "compare") {
      R.comparison.moved.forEach(function (m, i) {
        items.push({ index: i, id: m.id, query: "", states: [m.state_a, m.state_b], failing: m.cause_a !== "OK" || m.cause_b !== "OK", answers: [null, null] });
      });
    }
  }
  var list, rowsBox, detail, filterBox, onlySelect, answerSelect, countNode;
  var selected = -1;
  var shown = [];
  var ROW = 22;
  function questionsSection() {
    var node = section("questions", "Questions");
    filterBox = el("input", { id: "filter", type: "search", placeholder: "filter by id or text (press /)", "aria-label": "filter questions" });
    onlySelect = el("select", { id: "only", "aria-label": "which questions" },
      el("option", { value: "all", text: "all questions" }), el("option", { value: "failing", text: "failing only" }));
    countNode = el("span", { id: "count", cls: "muted" });
    answerSelect = answerFilter();
    var clear = el("button", { type: "button", id: "clear-filter", text: "clear filters" });
    clear.addEventListener("click", function () {
      filterBox.value = ""; onlySelect.value = "all"; stateFilter = null;
      if (answerSelect) answerSelect.value = "";
      A.clearMoveFilter();
      document.querySelectorAll("#transition-table td.active").forEach(function (n) { n.classList.remove("active"); });
      applyFilter();
    });
    node.appendChild(el("div", { id: "toolbar" }, filterBox, onlySelect, answerSelect, clear, countNode,
      el("span", { cls: "keys" }, el("kbd", { text: "j" }), "/", el("kbd", { text: "k" }), " next/previous · ",
        el("kbd", { text: "n" }), "/", el("kbd", { text: "N" }), " next/previous failing · ", el("kbd", { text: "/" }), " filter")));
    // The list is virtual: only the rows in view exist in the document, so 4,000 questions filter at once.
    list = el("div", { id: "qlist", role: "listbox", "aria-label": "questions", tabindex: "0" });
    rowsBox = el("div", { id: "qrows" });
    list.appendChild(rowsBox);
    detail = el("div", { id: "detail", "aria-live": "polite" });
    items.forEach(function (item) { item.haystack = (item.id + " " + item.query).toLowerCase(); });
    list.addEventListener("click", function (e) {
      var row = e.target.closest("[data-position]");
      if (row) select(Number(row.getAttribute("data-position")));
    });
    list.addEventListener("scroll", drawRows);
    filterBox.addEventListener("input", applyFilter);
    onlySelect.addEventListener("change", applyFilter);
    if (answerSelect) answerSelect.addEventListener("change", applyFilter);
    node.appendChild(el("div", { id: "split" }, list, detail));
    if (answerSelect) node.appendChild(el("p", { cls: "legend", text: "Answers: ok · gen (generation) · ret (retrieval) · uns (unsupported) · – no answer, per configuration with answers." }));
    node.appendChild(el("p", { cls: "legend", text: "Marks: ⟦ ⟧ gold evidence · ¦ chunk boundary · ✂ a boundary that cuts the gold (state lost) · ⧉ delivered in pieces · ≈ gold located approximately · ① rank 1 · ② rank 2-5 · ③ rank 6-20 · ✗ not in the top 20" }));
    applyFilter();
  }
  // The attribution filter: per configuration whose questions carry answers, each class with the report's count.
  function answerFilter() {
    var runs = [];
    if (items.length) items[0].answers.forEach(function (a, r) { if (a !== null) runs.push(r); });
    if (!runs.length) return null;
    var chooser = el("select", { id: "answer-filter", "aria-label": "attribution class" }, el("option", { value: "", text: "any answer" }));
    runs.forEach(function (r) {
      var block = A.blocks[r] && A.blocks[r].answers;
      var prefix = runs.length > 1 ? ("AB"[r] && KIND === "compare" ? "AB"[r] : A.label(r)) + ": " : "answer ";
      A.CLASSES.concat(["none"]).forEach(function (k) {
        var count = block ? (k === "none" ? block.unanswered : block.attribution[k]) : null;
        chooser.appendChild(el("option", { value: r + ":" + k, "data-count": JSON.stringify(count),
          text: prefix + (k === "none" ? "no answer" : k) + (count === null ? "" : " (" + count + ")") }));
      });
    });
    return chooser;
  }
  function rowOf(position) {
    var item = items[position];
    var row = el("div", { cls: "qrow" + (position === selected ? " selected" : ""), role: "option", "data-id": item.id,
      "data-position": String(position), "data-failing": item.failing ? "1" : "0" });
    if (position === selected) row.setAttribute("aria-selected", "true");
    item.states.forEach(function (s) { row.appendChild(el("span", { cls: "glyph " + STATE_CLASS[s], title: s, text: STATE_GLYPH[s] })); });
    item.answers.forEach(function (a) {
      if (a !== null) row.appendChild(el("span", { cls: "tag " + A.CSS[a], title: "answer: " + a, "data-attribution": a, text: A.TAG[a] }));
    });
    row.appendChild(el("span", { cls: "mono", text: " " + item.id + (item.approx ? " ≈" : "") + " " }));
    row.appendChild(el("span", { cls: "muted", text: item.query }));
    return row;
  }
  function drawRows() {
    var first = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
    var last = Math.min(shown.length, first + Math.ceil((list.clientHeight || 600) / ROW) + 20);
    rowsBox.style.height = (shown.length * ROW) + "px";
    var fragment = document.createDocumentFragment();
    for (var i = first; i < last; i++) {
      var row = rowOf(shown[i]);
      row.style.top = (i * ROW) + "px";
      fragment.appendChild(row);
    }
    rowsBox.textContent = "";
    rowsBox.appendChild(fragment);
  }
  function visible(item) {
    if (stateFilter && (item.states[0] !== stateFilter[0] || item.states[1] !== stateFilter[1])) return false;
    if (onlySelect.value === "failing" && !item.failing) return false;
    var move = A.moveFilter();
    if (move && !(item.answerMove && item.answerMove[0] === move[0] && item.answerMove[1] === move[1])) return false;
    if (answerSelect && answerSelect.value) {
      var wanted = answerSelect.value.split(":");
      if (item.answers[Number(wanted[0])] !== wanted[1]) return false;
    }
    var needle = filterBox.value.trim().toLowerCase();
    return !needle || item.haystack.indexOf(needle) >= 0;
  }
  function applyFilter() {
    shown = [];
    var isShown = {};
    items.forEach(function (item, position) { if (visible(item)) { shown.push(position); isShown[position] = true; } });
    countNode.textContent = shown.length + " of " + items.length + " questions" + (stateFilter ? " (A " + stateFilter[0] + " → B " + stateFilter[1] + ")" : "") +
      (A.moveFilter() ? " (evidence " + A.moveFilter()[0] + ", answer " + A.moveFilter()[1] + ")" : "");
    countNode.setAttribute("data-shown", String(shown.length));
    list.scrollTop = 0;
    if (selected < 0 || !isShown[selected]) {
      if (shown.length) { select(shown[0]); return; }
      selected = -1; detail.textContent = "";
    }
    keepInView();
  }
  function step(direction, failingOnly) {
    var n = shown.length;
    if (!n) return;
    var at = shown.indexOf(selected);
    for (var k = 1; k <= n; k++) {
      var i = ((at < 0 ? (direction > 0 ? -1 : 0) : at) + direction * k + n * 2) % n;
      if (!failingOnly || items[shown[i]].failing) { select(shown[i]); return; }
    }
  }
  function select(position) {
    selected = position;
    keepInView();
    renderDetail(items[position]);
  }
  // Scroll the list only (never the page) so the selected row shows, then draw the rows in view.
  function keepInView() {
    var at = shown.indexOf(selected);
    if (at >= 0) {
      var top = at * ROW, bottom = top + ROW;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    }
    drawRows();
  }
  // For tests and scripts: what the list holds now (ids in order) and which question is selected.
  window.chunkscopeReport = {
    shownIds: function () { return shown.map(function (p) { return items[p].id; }); },
    selectedId: function () { return selected < 0 ? null : items[selected].id; }
  };

  // ---- one question's detail, built on demand ----
  // The page holds the parts of each document it shows, as [start, text] pieces (sorted, apart): the code
  // points of [from, to) come from the one piece that holds them, converted on first use.
  var piecePoints = {};
  function textPoints(doc, from, to) {
    var pieces = DET.segments[doc] || [];
    for (var i = pieces.length - 1; i >= 0; i--) {
      if (pieces[i][0] > from) continue;
      var key = doc + ":" + i;
      if (!piecePoints[key]) piecePoints[key] = Array.from(pieces[i][1]);
      var points = piecePoints[key], start = pieces[i][0];
      return to <= start + points.length ? points.slice(from - start, to - start) : [];
    }
    return [];
  }
  // Text of document `doc` over [from, to) with gold (⟦ ⟧, highlighted), boundaries (|) and cuts (✂) marked.
  function markedText(doc, from, to, gold, boundaries, cuts, whole) {
    var points = textPoints(doc, from, to);
    var box = el("div", { cls: "text" });
    if (from > 0 && !whole) box.appendChild(document.createTextNode("…"));
    var marks = {};
    function add(position, order, kind) { if (position >= from && position <= to) (marks[position] = marks[position] || []).push([order, kind]); }
    gold.forEach(function (g) { if (g[1] > from && g[0] < to) { add(Math.max(g[0], from), 2, "open"); add(Math.min(g[1], to), 0, "close"); } });
    var cutSet = {};
    cuts.forEach(function (c) { cutSet[c] = true; add(c, 1, "cut"); });
    boundaries.forEach(function (b) { if (!cutSet[b]) add(b, 1, "bnd"); });
    var positions = Object.keys(marks).map(Number).sort(function (a, b) { return a - b; });
    var depth = 0, previous = from, target = box;
    function flush(upTo) {
      if (upTo > previous) target.appendChild(document.createTextNode(points.slice(previous - from, upTo - from).join("")));
      previous = upTo;
    }
    positions.forEach(function (position) {
      flush(position);
      marks[position].sort(function (a, b) { return a[0] - b[0]; }).forEach(function (m) {
        if (m[1] === "close") { depth--; target.appendChild(el("span", { cls: "bnd", text: "⟧" })); if (depth <= 0) { depth = 0; target = box; } }
        else if (m[1] === "open") { if (depth === 0) { target = el("mark", { cls: "gold" }); box.appendChild(target); } target.appendChild(el("span", { cls: "bnd", text: "⟦" })); depth++; }
        else if (m[1] === "cut") target.appendChild(el("span", { cls: "cut", title: "a chunk boundary cuts the gold here", text: "✂" }));
        else target.appendChild(el("span", { cls: "bnd", title: "chunk boundary", text: "¦" }));
      });
    });
    flush(to);
    if (to < DET.lengths[doc] && !whole) box.appendChild(document.createTextNode("…"));
    return box;
  }
  function goldOf(question, doc) {
    return question.gold.filter(function (g) { return g[1] === doc; }).map(function (g) { return [g[2], g[3]]; });
  }
  function boundariesIn(run, doc, from, to) {
    var all = run.boundaries[String(doc)] || [];
    return all.filter(function (b) { return b >= from && b <= to; });
  }
  function cutsIn(row, doc) {
    var out = [];
    row[10].forEach(function (c) { if (c[0] === doc) out = out.concat(c[3]); });
    return out;
  }
  var CONTEXT = DET ? DET.context : 0;
  var sweepRuns = DET && DET.runs.length > 1 ? [0, 1] : [0];
  function renderDetail(item) {
    detail.textContent = "";
    if (!DET) { renderSavedDetail(item); return; }
    var q = DET.questions[item.index];
    detail.appendChild(el("div", { cls: "query", id: "detail-query" }, el("span", { cls: "mono", text: q.id + "  " }), q.query));
    if (q.tags.length) detail.appendChild(el("div", { cls: "muted", text: "tags: " + q.tags.join(", ") }));
    var gold = el("ol", { id: "detail-gold" });
    q.gold.forEach(function (g) {
      var text = textPoints(g[1], g[2], g[3]).join("");
      gold.appendChild(el("li", null, "item " + (g[0] + 1) + (g[4] ? " ≈ " : " ") , el("code", { text: DET.documents[g[1]] + " " + g[2] + "–" + g[3] }), " “", text, "”"));
    });
    detail.appendChild(gold);
    if (q.references) {
      var refs = el("div", { id: "detail-references" }, el("b", { text: "references: " }));
      if (!q.references.length) refs.appendChild(el("span", { cls: "muted", text: "none" }));
      q.references.forEach(function (ref, j) { refs.appendChild(el("span", { cls: "reference" }, (j ? ", " : "") + "“", el("span", { text: ref }), "”")); });
      detail.appendChild(refs);
    }
    var shown = DET.runs.map(function (_, i) { return i; });
    if (KIND === "sweep") {
      // Two configurations side by side, each chosen from the sweep (the first two by default).
      var pickers = el("p", null, "configurations: ");
      sweepRuns.forEach(function (chosen, side) {
        var chooser = el("select", { id: "run-select-" + side, "aria-label": "configuration " + (side + 1) });
        DET.runs.forEach(function (run, i) { var o = el("option", { value: String(i), text: run.label }); if (i === chosen) o.selected = true; chooser.appendChild(o); });
        chooser.addEventListener("change", function () { sweepRuns[side] = Number(chooser.value); renderDetail(item); });
        pickers.appendChild(chooser);
        if (!side) pickers.appendChild(document.createTextNode(" beside "));
      });
      detail.appendChild(pickers);
      shown = sweepRuns.slice();
    }
    var runs = el("div", { cls: "runs" });
    shown.forEach(function (r) { runs.appendChild(runColumn(q, r, item.index, KIND === "compare" ? "AB"[r] : null)); });
    detail.appendChild(runs);
  }
  function runColumn(q, r, index, side) {
    var run = DET.runs[r], row = run.rows[index];
    var box = el("div", { cls: "run", "data-label": run.label });
    box.appendChild(el("h3", { cls: "mono", text: (side ? side + ": " : "") + run.label }));
    var state = row[0];
    box.appendChild(el("div", { "data-state": state }, el("span", { cls: "glyph " + STATE_CLASS[state], text: STATE_GLYPH[state] }),
      " state " + state + " · first correct rank " + fmt(row[1]) + (row[4] ? " · complete ✓" : " · incomplete")));
    box.appendChild(el("div", { "data-cause": row[2] }, el("b", { cls: row[2] === "OK" ? "good" : "bad", text: row[2] }), ": ", row[3]));
    if (run.answers) {
      var a = run.answers[index];
      box.appendChild(A.line(a ? { answer: a[0], correct: a[1], score: a[2], attribution: a[3], cause: a[4] } : null, A.blocks[r]));
    }
    if (run.answer_in_context) {
      var flag = run.answer_in_context[index];
      box.appendChild(el("div", { cls: "muted", "data-in-context": JSON.stringify(flag), text: "answer in context: " + (flag === null ? "– (no reference)" : flag ? "yes" : "no") }));
    }
    var budget = run.budget === null ? "no budget" : "budget " + run.budget + " " + run.budget_units + " (" + run.overflow + ")";
    box.appendChild(el("div", { cls: "muted", text: "sent " + row[6] + " chars · " + budget + " · delivery stopped: " + row[8] +
      " · duplicate " + row[7] + " chars" }));
    box.appendChild(el("h3", { text: "Gold in its document, with this configuration's chunk boundaries" }));
    var seen = {};
    q.gold.forEach(function (g) {
      var key = g[1] + ":" + g[2] + ":" + g[3];
      if (seen[key]) return;
      seen[key] = true;
      var doc = g[1];
      var from = Math.max(0, g[2] - CONTEXT), to = Math.min(DET.lengths[doc], g[3] + CONTEXT);
      box.appendChild(el("div", { cls: "mono muted", text: DET.documents[doc] + " " + g[2] + "–" + g[3] }));
      box.appendChild(markedText(doc, from, to, goldOf(q, doc), boundariesIn(run, doc, from, to), cutsIn(row, doc)));
    });
    box.appendChild(el("h3", { text: "Top-" + run.top_k + " ranked chunks" }));
    if (!row[9].length) box.appendChild(el("p", { cls: "muted", text: "Nothing was retrieved (no chunk scored above 0)." }));
    row[9].forEach(function (hit) {
      var doc = hit[2], sent = hit[6] !== null;
      var head = "#" + hit[0] + " " + hit[1] + "  " + DET.documents[doc] + " " + hit[3] + "–" + hit[4] + "  score " + hit[5].toFixed(4) +
        (sent ? "  sent " + hit[6] + "–" + hit[7] + (hit[7] < hit[4] ? " (truncated)" : "") : "  not sent");
      box.appendChild(el("div", { cls: "hit-head" + (sent ? " sent" : ""), "data-rank": String(hit[0]) }, head));
      box.appendChild(markedText(doc, hit[3], hit[4], goldOf(q, doc), [hit[3], hit[4]], cutsIn(row, doc).filter(function (c) { return c > hit[3] && c < hit[4]; }), true));
    });
    return box;
  }
  function renderSavedDetail(item) {
    detail.appendChild(el("div", { cls: "query", id: "detail-query" }, el("span", { cls: "mono", text: item.id })));
    if (KIND === "eval") {
      var runs = el("div", { cls: "runs" });
      R.configs.forEach(function (c, i) {
        var q = c.questions[item.index];
        var box = el("div", { cls: "run" }, el("h3", { cls: "mono", text: labelOf(c, i) }));
        box.appendChild(el("div", null, el("b", { text: q.failure_cause }), ": ", q.failure_detail));
        box.appendChild(el("div", { cls: "muted", text: "first correct rank " + fmt(q.first_correct_rank) + " · sent " + q.sent_chars + " chars · duplicate " + q.duplicate_chars + " chars · delivery stopped: " + q.delivery_stop }));
        if ("answer_attribution" in q) {
          box.appendChild(A.line(q.answer_attribution === null ? null : { answer: q.answer, correct: q.answer_correct, score: q.answer_score,
            attribution: q.answer_attribution, cause: q.failure_cause }, A.blocks[i]));
        }
        if ("answer_in_context" in q) box.appendChild(el("div", { cls: "muted", "data-in-context": JSON.stringify(q.answer_in_context), text: "answer in context: " + (q.answer_in_context === null ? "– (no reference)" : q.answer_in_context ? "yes" : "no") }));
        q.cuts.forEach(function (cut) { box.appendChild(el("div", { cls: "mono" }, "✂ " + cut.doc + " " + cut.start + "–" + cut.end + " cut at " + cut.boundaries.join(", "))); });
        q.ranked.slice(0, c.top_k).forEach(function (hit) { box.appendChild(el("div", { cls: "hit-head", text: "#" + hit.rank + " " + hit.id + " " + hit.start + "–" + hit.end + " score " + fmt(hit.score) })); });
        runs.appendChild(box);
      });
      detail.appendChild(runs);
    } else {
      var m = R.comparison.moved[item.index];
      detail.appendChild(el("p", { text: "A " + m.state_a + " (rank " + fmt(m.rank_a) + ", " + m.cause_a + ") → B " + m.state_b + " (rank " + fmt(m.rank_b) + ", " + m.cause_b + "): " + m.movement }));
    }
  }

  // ---- keys ----
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var typing = e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.tagName === "TEXTAREA");
    if (typing) { if (e.key === "Escape" || e.key === "Enter") e.target.blur(); return; }
    if (!items.length) return;
    if (e.key === "/") { e.preventDefault(); filterBox.focus(); }
    else if (e.key === "j") step(1, false);
    else if (e.key === "k") step(-1, false);
    else if (e.key === "n") step(1, true);
    else if (e.key === "N") step(-1, true);
  });

  // A section shows only when the report holds what it draws (a report of an older chunkscope may lack a part).
  function every(test) { return R.configs.every(test); }
  provenance();
  metrics();
  if (every(function (c) { return c.summary.rank_buckets; })) buckets();
  if (every(function (c) { return c.diagnosis && c.diagnosis.counts; })) causes();
  if (KIND === "compare" && R.comparison.transitions) transitions();
  if (A.blocks.some(function (b) { return b; })) A.section();
  if (KIND === "sweep" && R.pareto) sweepMap();
  buildItems();
  if (items.length) questionsSection();
  document.body.setAttribute("data-ready", "1");
})();
