// chunkscope HTML report: the answers (evidence tied to whether the answer came out right). Part of the page's
// script: render.py puts this file before page.js, which calls chunkscopeAnswers with its own helpers. Every
// number is read from the report's answer blocks (eval: each configuration's "answers"; compare: the report's
// "answers") or from the per-question answers the reports layer embeds; texts are inserted as text only.
"use strict";
function chunkscopeAnswers(page) {
  var el = page.el, fmt = page.fmt, numCell = page.numCell, section = page.section, labelOf = page.labelOf;
  var R = page.R, DET = page.DET, KIND = page.KIND;
  var moveFilter = null;  // [evidence transition, answer transition] of the answer transition cell clicked, or null
  var CLASSES = ["ok", "generation", "retrieval", "unsupported"];
  var CSS = { ok: "good", generation: "bad", retrieval: "bad", unsupported: "warn", none: "muted" };
  var TAG = { ok: "ok", generation: "gen", retrieval: "ret", unsupported: "uns", none: "–" };
  function answerBlocks() {
    if (KIND === "eval") return R.configs.map(function (c) { return c.answers || null; });
    if (KIND === "compare" && R.answers) return R.answers.configs;
    return [];
  }
  var blocks = answerBlocks();
  function answeredLabel(i) {
    var block = blocks[i];
    return block && block.answers ? block.answers.configuration : labelOf(R.configs[i], i);
  }
  // A statistic and its 95% interval, as the report holds them (value, low, high; null where undefined).
  function statSpan(name, config, stat) {
    var text = stat.value === null ? "undefined" : fmt(stat.value) + (stat.low === null || stat.high === null ? "" : " [" + fmt(stat.low) + ", " + fmt(stat.high) + "]");
    return el("span", { cls: "mono", "data-stat": name, "data-config": String(config), "data-value": JSON.stringify(stat.value),
      "data-low": JSON.stringify(stat.low), "data-high": JSON.stringify(stat.high), text: text });
  }
  function answerCount(name, config, value) {
    return el("span", { "data-count": name, "data-config": String(config), "data-value": JSON.stringify(value), text: fmt(value) });
  }
  function answersSection() {
    var node = section("answers", "Answers");
    var flagged = [];
    blocks.forEach(function (b, i) { if (b && b.questions_with_references !== undefined) flagged.push(i); });
    if (flagged.length) {
      var table = el("table", { id: "answer-in-context" }, el("tr", null, el("th", { text: "configuration" }), el("th", { cls: "num", text: "complete" }),
        el("th", { cls: "num", text: "answer_in_context" }), el("th", { cls: "num", text: "answer_in_context_rate" }), el("th", { cls: "num", text: "questions_with_references" })));
      flagged.forEach(function (i) {
        var b = blocks[i];
        table.appendChild(el("tr", { "data-config": String(i) }, el("th", { cls: "mono", text: labelOf(R.configs[i], i) }), numCell(R.configs[i].summary.complete),
          numCell(b.answer_in_context, { "data-metric": "answer_in_context" }), numCell(b.answer_in_context_rate, { "data-metric": "answer_in_context_rate" }),
          numCell(b.questions_with_references, { "data-metric": "questions_with_references" })));
      });
      node.appendChild(el("div", { cls: "scroll" }, table));
      node.appendChild(el("p", { cls: "legend", text: "answer_in_context: a reference answer occurs in the text delivered within top-k and the budget (a proxy that needs no generator)." }));
    }
    var sides = el("div", { cls: KIND === "compare" ? "answer-sides" : "" });
    blocks.forEach(function (b, i) { if (b && b.answers) attributionBlock(sides, b.answers, i); });
    node.appendChild(sides);
    if (KIND === "compare" && R.answers.transitions) answerTransitions(node, R.answers.transitions);
  }
  function attributionBlock(node, a, i) {
    var box = el("div", { cls: "answers-of", "data-config": String(i) });
    box.appendChild(el("h3", { cls: "mono", text: "Answers of " + (KIND === "compare" ? "AB"[i] + " = " : "") + a.configuration }));
    box.appendChild(el("p", null, "From ", el("code", { text: a.source }), " (" + a.format + "), judged by " + a.judged_by + ". They belong to this configuration: ",
      el("b", { cls: "why", text: a.why_this_configuration }), "; never to another."));
    box.appendChild(el("p", null, "answered ", answerCount("answered", i, a.answered), " · correct ", answerCount("correct", i, a.correct),
      " (rate ", answerCount("correct_rate", i, a.correct_rate), ") · unanswered ", answerCount("unanswered", i, a.unanswered),
      " (left out) · unmatched rows ", answerCount("unmatched_rows", i, a.unmatched_rows.length), " · duplicate rows ", answerCount("duplicate_rows", i, a.duplicate_rows.length)));
    var head = el("tr", null, el("th", { text: "failure cause" }));
    CLASSES.forEach(function (k) { head.appendChild(el("th", { cls: "num " + CSS[k], text: k })); });
    var table = el("table", { cls: "attribution-table", id: "attribution-" + i }, head);
    function line(cause, counts, strong) {
      var row = el("tr", { "data-cause": cause }, el(strong ? "th" : "td", { text: cause }));
      CLASSES.forEach(function (k) {
        var td = numCell(counts[k], { "data-class": k });
        if (!counts[k]) td.classList.add("zero");
        row.appendChild(td);
      });
      table.appendChild(row);
    }
    Object.keys(a.by_cause).forEach(function (cause) { line(cause, a.by_cause[cause], false); });
    line("all", a.attribution, true);
    box.appendChild(el("div", { cls: "scroll" }, table));
    box.appendChild(el("p", null, "Evidence complete vs answer correct: agreement ", statSpan("agreement", i, a.agreement), " · phi ", statSpan("phi", i, a.phi),
      " (95% bootstrap intervals" + (a.phi.undefined_resamples ? "; " + a.phi.undefined_resamples + " resamples with phi undefined left out of its interval" : "") + ")."));
    box.appendChild(el("p", { cls: "legend", text: "ok: complete, correct · generation: complete, wrong (the generator's fault) · retrieval: incomplete, wrong · unsupported: incomplete, correct (incomplete gold, evidence in pieces, or the model's own knowledge)." }));
    if (a.unmatched_rows.length) {
      var list = el("ul", { cls: "mono" });
      a.unmatched_rows.forEach(function (where) { list.appendChild(el("li", { text: where })); });
      box.appendChild(el("details", null, el("summary", { text: a.unmatched_rows.length + (a.unmatched_rows.length === 1 ? " row" : " rows") + " of the answers file matched no question" }), list));
    }
    node.appendChild(box);
  }
    function answerTransitions(node, t) {
    node.appendChild(el("h3", { id: "answer-transitions-head", text: "Answers under A and B: evidence transitions (rows) × answer transitions (columns), " + t.questions + " questions answered under both" }));
    var evidence = Object.keys(t.transitions);
    var answers = Object.keys(t.transitions[evidence[0]]);
    var head = el("tr", null, el("th", { text: "evidence \\ answer" }));
    answers.forEach(function (k) { head.appendChild(el("th", { cls: "num", text: k })); });
    var table = el("table", { id: "answer-transitions" }, head);
    evidence.forEach(function (e) {
      var row = el("tr", null, el("th", { text: e }));
      answers.forEach(function (k) {
        var count = t.transitions[e][k];
        var td = numCell(count, { "data-evidence": e, "data-answer": k });
        if (!count) td.classList.add("zero");
        if (DET && DET.answer_transitions) {
          // Clicking a cell lists its questions (from the reports layer's per-question transitions).
          td.textContent = "";
          page.filterCell(td, count, "show the questions: evidence " + e + ", answer " + k, "#answer-transitions", function (on) {
            var active = moveFilter && moveFilter[0] === e && moveFilter[1] === k;
            if (on !== undefined) moveFilter = on ? [e, k] : null;
            return active;
          });
        }
        row.appendChild(td);
      });
      table.appendChild(row);
    });
    node.appendChild(el("div", { cls: "scroll" }, table));
    if (DET && DET.answer_transitions) node.appendChild(el("p", { cls: "legend", text: "Click a cell to list its questions; again to clear." }));
    var tests = el("table", { id: "answer-tests" }, el("tr", null, el("th", { text: "paired test, same questions" }), el("th", { cls: "num", text: "A" }),
      el("th", { cls: "num", text: "B" }), el("th", { cls: "num", text: "Δ (B−A)" }), el("th", { cls: "num", text: "p" })));
    tests.appendChild(el("tr", { "data-test": "answer" }, el("td", { text: "answer correct rate" + (t.exact ? " (exact)" : "") }),
      numCell(t.answer_rate_a, { "data-field": "answer_rate_a" }), numCell(t.answer_rate_b, { "data-field": "answer_rate_b" }),
      numCell(t.delta, { "data-field": "delta" }), numCell(t.p_value, { "data-field": "p_value" })));
    tests.appendChild(el("tr", { "data-test": "evidence" }, el("td", { text: "evidence complete" }), el("td"), el("td"), el("td"),
      numCell(t.evidence_p_value, { "data-field": "evidence_p_value" })));
    node.appendChild(tests);
    node.appendChild(el("p", { id: "answer-summary", text: t.summary + "." }));
    if (t.equivalence) {
      var eq = t.equivalence;
      node.appendChild(el("p", { id: "answer-equivalence" }, "Answer rate TOST within ±" + fmt(eq.margin) + ": p ", el("span", { "data-field": "equivalence_p", "data-value": JSON.stringify(eq.p_value), text: fmt(eq.p_value) }), ", " + eq.verdict + "."));
    }
  }

  // One question's answer under a configuration: the answer, its judgment and its attribution class.
  function answerLine(a, block) {
    if (!a) {
      var source = block && block.answers ? block.answers.source : "the answers";
      return el("div", { cls: "answer muted", "data-attribution": "none", text: "No answer in " + source + " (left out of the attribution)." });
    }
    var box = el("div", { cls: "answer", "data-attribution": a.attribution });
    box.appendChild(el("div", null, el("b", { text: "answer: " }), "“", el("span", { cls: "answer-text", text: a.answer }), "”"));
    box.appendChild(el("div", null, el("span", { cls: a.correct ? "good" : "bad", "data-correct": String(a.correct), text: a.correct ? "✓ correct" : "✗ wrong" }),
      a.score === null || a.score === undefined ? "" : " (score " + fmt(a.score) + ")", " · attribution ",
      el("b", { cls: CSS[a.attribution], text: a.attribution }), a.cause ? " (cause " + a.cause + ")" : ""));
    return box;
  }
  return {
    blocks: blocks,
    CLASSES: CLASSES,
    CSS: CSS,
    TAG: TAG,
    label: answeredLabel,
    section: answersSection,
    line: answerLine,
    // The questions the clicked answer transition cell lists (null: no such filter), and clearing it.
    moveFilter: function () { return moveFilter; },
    clearMoveFilter: function () {
      moveFilter = null;
      document.querySelectorAll("#answer-transitions td.active").forEach(function (n) { n.classList.remove("active"); });
    }
  };
}
