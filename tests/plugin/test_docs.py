"""docs/testing-gates.md shows the worked example exactly as tests/plugin/test_custom_gate_example.py runs it."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", markdown, flags=re.DOTALL)


def test_every_python_block_of_the_gate_docs_is_in_the_tests():
    doc = (REPO / "docs" / "testing-gates.md").read_text()
    example = (REPO / "tests" / "plugin" / "test_custom_gate_example.py").read_text()
    fixtures = (REPO / "tests" / "plugin" / "test_fixtures.py").read_text()
    blocks = python_blocks(doc)
    assert len(blocks) >= 4
    for block in blocks:
        code = block.replace("import re\n", "import re\nimport sys\n", 1) if block.startswith("import re") else block
        assert code in example or block in fixtures, f"docs/testing-gates.md block not found in the tests:\n{block}"
    assert "class NoInventedEmailsGate(BaseGate)" in blocks[0]


def test_the_embedding_docs_link_the_gate_docs():
    embedding = (REPO / "docs" / "embedding.md").read_text()
    assert "(testing-gates.md)" in embedding
    for heading in ("## Embed in 10 lines of Python", "## Point an existing OpenAI-client app at the endpoint",
                    "## Write and test a gate", "## Open the trace viewer"):
        assert heading in embedding
