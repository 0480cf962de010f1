"""The model families, chosen by a configuration's ``arch``: the pointer-mixture LSTM
(models/pointer_lstm.py) and the tree-transformer (models/tree_transformer.py). Both take the
same batches and give the same outputs, so training, evaluation, checkpoints and the server
treat them alike."""

from __future__ import annotations

from torch import nn

from .pointer_lstm import ARCHS as LSTM_ARCHS
from .pointer_lstm import ModelConfig, PointerLSTM
from .tree_positions import PositionConfig
from .tree_transformer import TransformerConfig, TreeTransformer

TREE_TRANSFORMER = "tree-transformer"
ARCHS = (*LSTM_ARCHS, TREE_TRANSFORMER)
FORMATS = {"pointer-lstm": "treecomplete-pointer-lstm/1", TREE_TRANSFORMER: "treecomplete-tree-transformer/1"}

Config = ModelConfig | TransformerConfig


def config_from_dict(data: dict) -> Config:
    if data.get("arch") == TREE_TRANSFORMER:
        return TransformerConfig.from_dict(data)
    return ModelConfig.from_dict(data)


def create(config: Config, n_types: int, n_values: int) -> nn.Module:
    if isinstance(config, TransformerConfig):
        return TreeTransformer(config, n_types, n_values)
    return PointerLSTM(config, n_types, n_values)


def family(config: Config) -> str:
    return TREE_TRANSFORMER if isinstance(config, TransformerConfig) else "pointer-lstm"


def tree_positions(config: Config) -> PositionConfig | None:
    """The tree positions a model reads, or None."""
    return config.tree_config if isinstance(config, TransformerConfig) and config.uses_tree else None
