"""Each study's analysis: Google Benchmark records -> Markdown, figures and headline findings.

A study's module (named after studies/<study>/) has
  analyze(results: gbench.StudyResults, figures: output.Figures) -> str   the report's section
  headlines(results) -> [Headline]   the findings the report's summary puts beside the seed's
Other modules here: tune (the tuning table's analysis: its reduce and scan rows), latency_model
(the latency model of src/kps_models/latency_model.hpp), schedsim (the latency study's scheduler
simulation) and ncu_split (Nsight Compute CSV).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Headline:
    question: str
    result: str  # this machine's answer
    seed: str    # the seed study's figure for the same question ('—' where it has none)


def module(study: str):
    """The analysis module of a study, or None for a study without one."""
    try:
        return importlib.import_module(f"kps_report.analyses.{study}")
    except ModuleNotFoundError as e:
        if e.name == f"kps_report.analyses.{study}":
            return None
        raise
