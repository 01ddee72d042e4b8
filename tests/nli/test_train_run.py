"""A real (tiny) training run: the time limit stops it at a snapshot, and an absent accelerator is an error."""

from __future__ import annotations

import json

import pytest

from controlplane.contracts.errors import ConfigurationError
from controlplane.nli.shipped import verifier_dir
from controlplane.nli.train import TrainConfig, resolve_device, train

from .test_doclevel import write_data

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.models


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
    cfg = TrainConfig(out=str(out), sources=("fm2",), data_dir=str(tmp_path), synthetic_neutral=0, batch_size=4,
                      max_length=32, max_steps=50, checkpoint_every=1000, base_model=str(verifier_dir()),
                      max_seconds=1e-9, log_every=1000)
    train(cfg, log=lambda _msg: None)
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["steps"] == 1 and summary["stopped_by_time"] is True
    assert (out / "snapshots" / "step-1" / "config.json").is_file()
    assert json.loads((out / "train_config.json").read_text())["device"] == "cpu"
