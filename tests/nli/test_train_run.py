"""A real (tiny) training run: the time limit stops it at a snapshot, and an absent accelerator is an error."""

from __future__ import annotations

import json

import pytest

from controlplane.contracts.errors import ConfigurationError
from controlplane.nli.doclevel import BINARY_NEGATIVE
from controlplane.nli.shipped import verifier_dir
from controlplane.nli.train import (
    NOT_ENTAILED_ID,
    TrainConfig,
    distillation_loss,
    keep_only_layers,
    parse_layers,
    resolve_device,
    train,
    training_target,
)
from controlplane.nli.transformers_backend import TransformersNliBackend

from .test_doclevel import write_data

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.models


def tiny_run(out, data_dir, **options) -> TrainConfig:
    """A run of a few steps on write_data's rows, from the shipped verifier unless ``base_model`` says otherwise."""
    return TrainConfig(**{"out": str(out), "sources": ("fm2",), "data_dir": str(data_dir), "synthetic_neutral": 0,
                          "batch_size": 4, "max_length": 32, "checkpoint_every": 1000, "log_every": 1000,
                          "base_model": str(verifier_dir()), **options})


def test_asking_for_cuda_without_one_is_a_configuration_error():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ConfigurationError, match="--device cuda"):
        resolve_device("cuda", torch)
    assert resolve_device("auto", torch) == "cpu"
    with pytest.raises(ConfigurationError, match="cpu, cuda or auto"):
        resolve_device("tpu", torch)


def test_a_run_out_of_time_stops_at_a_snapshot_and_says_so(tmp_path):
    if not (verifier_dir() / "model.safetensors").is_file():
        pytest.skip("the shipped verifier's weights are not in this checkout")
    write_data(tmp_path)
    out = tmp_path / "run"
    train(tiny_run(out, tmp_path, max_steps=50, max_seconds=1e-9), log=lambda _msg: None)
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["steps"] == 1 and summary["stopped_by_time"] is True
    assert (out / "snapshots" / "step-1" / "config.json").is_file()
    assert json.loads((out / "train_config.json").read_text())["device"] == "cpu"


def test_targets_of_the_two_heads():
    assert [training_target(x) for x in ("entailment", "neutral", "contradiction")] == [0, 1, 2]
    assert training_target(BINARY_NEGATIVE) == NOT_ENTAILED_ID
    assert [training_target(x, "2way") for x in ("entailment", "neutral", "contradiction", BINARY_NEGATIVE)] == [0, 1, 1, 1]


def test_an_unknown_head_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigurationError, match="--head 'four'"):
        train(TrainConfig(out=str(tmp_path / "run"), head="four"), log=lambda _msg: None)


def test_a_two_way_run_gives_a_model_the_backend_reads_as_entailed_or_not(tmp_path):
    if not (verifier_dir() / "model.safetensors").is_file():
        pytest.skip("the shipped verifier's weights are not in this checkout")
    write_data(tmp_path)
    out = tmp_path / "run"
    final = train(tiny_run(out, tmp_path, max_steps=2, head="2way"), log=lambda _msg: None)
    config = json.loads((final / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "not_entailment"}
    summary = json.loads((out / "train_summary.json").read_text())
    assert "accuracy_2way" in summary["holdout"]
    backend = TransformersNliBackend(final, max_length=32)
    assert backend.label_index == {"entailment": 0, "neutral": 1}
    score = backend.score([("The sky is blue.", "The sky is blue.")])[0]
    assert score.contradiction == 0.0 and abs(score.entailment + score.neutral - 1.0) < 1e-6
    # and back: a 3-way run from that 2-way model gets a new 3-way head (no size-mismatch error)
    three = train(tiny_run(tmp_path / "run3", tmp_path, max_steps=1, base_model=str(final)), log=lambda _msg: None)
    assert json.loads((three / "config.json").read_text())["id2label"] == {"0": "entailment", "1": "neutral",
                                                                          "2": "contradiction"}


def test_layer_lists_parse_and_bad_ones_are_configuration_errors():
    assert parse_layers("0,2,4,5") == (0, 2, 4, 5)
    assert parse_layers("") == () and parse_layers(" 1 , 3 ") == (1, 3)
    with pytest.raises(ConfigurationError, match="--keep-layers 'two'"):
        parse_layers("two")


def shipped_depth() -> int:
    """The shipped verifier's number of transformer layers (it is itself a student, so the tests do not assume 6)."""
    return json.loads((verifier_dir() / "config.json").read_text())["num_hidden_layers"]


def test_a_student_keeps_exactly_the_chosen_layers_of_its_base(tmp_path):
    """keep_only_layers cuts the base to those layers, in that order: each kept layer is the base's, weight for weight."""
    from transformers import AutoModelForSequenceClassification

    if not (verifier_dir() / "model.safetensors").is_file():
        pytest.skip("the shipped verifier's weights are not in this checkout")
    base = AutoModelForSequenceClassification.from_pretrained(verifier_dir())
    student = AutoModelForSequenceClassification.from_pretrained(verifier_dir())
    depth = shipped_depth()
    keep = (0, depth // 2, depth - 1)
    keep_only_layers(student, keep)
    assert student.config.num_hidden_layers == 3 and len(student.base_model.encoder.layer) == 3
    for mine, theirs in zip(student.base_model.encoder.layer, keep, strict=True):
        assert torch.equal(mine.output.dense.weight, base.base_model.encoder.layer[theirs].output.dense.weight)
    for bad in ((), (0, 0), (depth,), (-1,)):
        with pytest.raises(ConfigurationError, match="--keep-layers"):
            keep_only_layers(AutoModelForSequenceClassification.from_pretrained(verifier_dir()), bad)


def test_a_student_run_trains_saves_and_loads_with_fewer_layers(tmp_path):
    if not (verifier_dir() / "model.safetensors").is_file():
        pytest.skip("the shipped verifier's weights are not in this checkout")
    write_data(tmp_path)
    out = tmp_path / "run"
    keep = (0, shipped_depth() - 1)
    final = train(tiny_run(out, tmp_path, max_steps=2, keep_layers=keep), log=lambda _msg: None)
    assert json.loads((final / "config.json").read_text())["num_hidden_layers"] == 2
    assert json.loads((out / "train_config.json").read_text())["keep_layers"] == list(keep)
    backend = TransformersNliBackend(final, max_length=32)
    assert len(backend.model.base_model.encoder.layer) == 2
    score = backend.score([("The sky is blue.", "The sky is blue.")])[0]
    assert abs(score.entailment + score.neutral + score.contradiction - 1.0) < 1e-6
    # resuming continues the 2-layer student, it does not cut the checkpoint again (that would ask for its layer
    # depth - 1, which a 2-layer model does not have)
    resumed = train(tiny_run(out, tmp_path, max_steps=3, keep_layers=keep), resume=True, log=lambda _msg: None)
    assert json.loads((resumed / "config.json").read_text())["num_hidden_layers"] == 2


def test_the_distillation_loss_is_zero_only_when_the_student_matches_the_teacher():
    teacher = torch.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 3.0]])
    assert distillation_loss(teacher.clone(), teacher, 2.0, torch).item() == pytest.approx(0.0, abs=1e-6)
    apart = distillation_loss(torch.zeros(2, 3), teacher, 2.0, torch).item()
    assert apart > 0.05
    closer = distillation_loss(teacher * 0.8, teacher, 2.0, torch).item()
    assert 0 < closer < apart


def test_a_distilled_student_trains_from_its_teacher_and_a_mismatched_teacher_is_refused(tmp_path):
    if not (verifier_dir() / "model.safetensors").is_file():
        pytest.skip("the shipped verifier's weights are not in this checkout")
    write_data(tmp_path)
    final = train(tiny_run(tmp_path / "run", tmp_path, max_steps=2, keep_layers=(0, shipped_depth() - 1),
                           teacher_model=str(verifier_dir()), distill_weight=0.7), log=lambda _msg: None)
    assert json.loads((final / "config.json").read_text())["num_hidden_layers"] == 2
    saved = json.loads((tmp_path / "run" / "train_config.json").read_text())
    assert saved["teacher_model"] == str(verifier_dir()) and saved["distill_weight"] == 0.7
    with pytest.raises(ConfigurationError, match="--teacher .*not a model directory"):
        train(tiny_run(tmp_path / "bad", tmp_path, max_steps=1, teacher_model=str(tmp_path)), log=lambda _msg: None)
    with pytest.raises(ConfigurationError, match="--distill-weight"):
        train(tiny_run(tmp_path / "bad2", tmp_path, max_steps=1, teacher_model=str(verifier_dir()), distill_weight=2.0),
              log=lambda _msg: None)
    # a 3-way teacher cannot teach a 2-way student: the labels differ
    with pytest.raises(ConfigurationError, match="labels"):
        train(tiny_run(tmp_path / "bad3", tmp_path, max_steps=1, head="2way", teacher_model=str(verifier_dir())),
              log=lambda _msg: None)
