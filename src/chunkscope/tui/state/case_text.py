"""The texts the inspector exports or copies: one question's case file, from the results on screen."""

from __future__ import annotations

from collections.abc import Callable

from chunkscope.reports.answers import AnswerOutcome, add_to_eval_report
from chunkscope.reports.casefile import case_file
from chunkscope.reports.eval import eval_report, to_json
from chunkscope.results import ConfigResult
from chunkscope.tui.state.session import Session


def shown_results(session: Session, with_b: bool) -> tuple[ConfigResult, ...]:
    """The results on screen: A's, and B's when ``with_b`` (the split view)."""
    slots = session.slots()[: 2 if with_b else 1]
    return tuple(slot.shown for slot in slots if slot.shown is not None)


def case_file_renderer(session: Session, question_id: str, with_b: bool) -> Callable[[], str]:
    """Renders the Markdown case file of one question under the results on screen now (with the move to B
    when ``with_b``, and the answer under the answers' own configuration when it is on screen). It holds only
    immutable values, so it may run on another thread."""
    question = session.question(question_id)
    results = shown_results(session, with_b)
    comparison = session.comparison() if with_b else None
    corpus, name = session.dataset.corpus, session.dataset.name
    answers = session.answers.outcome(results) if session.answers is not None else None
    return lambda: case_file(question, corpus, results, name, comparison, answers)


def case_file_text(session: Session, question_id: str, with_b: bool) -> str:
    """The case file the export writes for one question, as text (what ``Y`` copies)."""
    return case_file_renderer(session, question_id, with_b)()


def report_renderer(session: Session, with_b: bool) -> Callable[[], str]:
    """Renders the eval JSON report of the results on screen (A's, and B's when ``with_b``), with the answers
    attributed under their own configuration when it is among them, as ``eval --answers`` reports them."""
    dataset, results = session.dataset, shown_results(session, with_b)
    answers = session.answers.outcome(results) if session.answers is not None else AnswerOutcome()

    def render() -> str:
        report = eval_report(dataset, results)
        add_to_eval_report(report, results, answers)
        return to_json(report)

    return render
