"""An everyday word in a question does not hold it to a high-stakes domain's two independent sources: asked with
"approval" or "sign-off", a question one document answers is answered from it, as the same question asked with
"approve" always was (the shipped scorer deciding, through the real pipeline)."""

from __future__ import annotations

import pytest

from controlplane.contracts import TraceStatus

pytestmark = pytest.mark.models  # MiniLM and the shipped verifier, through the scorer

RELEASES = ("A release needs a green CI run, a manual smoke test on at least one physical iPhone and one physical "
            "Android device, and sign-off from the mobile lead. Hotfixes that cannot wait for the next train use an "
            "expedited review request on iOS and a 100% rollout on Android, and need approval from the CTO.")
EVIDENCE = [{"id": "E1", "title": "Mobile release process", "text": RELEASES, "trust_tier": "authoritative"}]


@pytest.mark.parametrize("question, quoted", [
    ("Whose approval do hotfixes need?", "need approval from the CTO."),
    ("Who gives sign-off for a mobile release?", "and sign-off from the mobile lead."),
])
def test_an_approval_or_sign_off_question_is_answered_from_one_document(scorer_decides, question, quoted):
    result = scorer_decides.run(question, evidence=EVIDENCE)
    assert "governance" not in result.mode_decision.domainFlags
    assert result.status is TraceStatus.PASS and result.verified, result.assistant_text
    assert result.assistant_text.endswith(f"{quoted} [E1]"), result.assistant_text


def test_a_policy_change_question_is_still_held_to_two_sources(scorer_decides):
    result = scorer_decides.run("Who signs off a policy change?", evidence=[
        {"id": "E1", "title": "Governance", "trust_tier": "authoritative",
         "text": "A policy change is signed off by two reviewers of the platform team."}])
    assert result.mode_decision.domainFlags == ["governance"]
    assert not result.verified
    assert "at least 2 independent sources" in result.assistant_text, result.assistant_text
