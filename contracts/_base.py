"""Shared configuration for every contract model.

Contracts are the one vocabulary that crosses a boundary (model output, trace store, bundle file, HTTP body), so
unknown fields are rejected rather than silently dropped: a typo in a policy bundle or a field invented by the model
must be visible.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID_BASE = "https://controlplane.local/schemas/"


class Contract(BaseModel):
    """Base of every contract: strict about unknown fields, JSON-mode friendly."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_enum_values=False)
